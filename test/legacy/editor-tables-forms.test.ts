import { describe, expect, it } from 'vitest';
import { IoStoreError } from '../../src/errors.js';
import { readPackageMetaData, readPackageTrailer, readWorldTileInfo, readGatherableText } from '../../src/legacy/editor-tables/index.js';
import { FORTNITE_MAIN, type EditorTableFormat } from '../../src/legacy/editor-tables/format.js';
import { writeGatherableText } from '../../src/legacy/editor-tables/gatherable-text.js';
import { writePackageMetaData, type LegacyPackageMetaData } from '../../src/legacy/editor-tables/package-metadata.js';
import { readLegacySubPath } from '../../src/legacy/editor-tables/primitives.js';
import { readCompressedBufferHeader, trailerPayloadSpan, writePackageTrailer, type LegacyPackageTrailer } from '../../src/legacy/editor-tables/trailer.js';
import { writeWorldTileInfo, type LegacyWorldTileInfo } from '../../src/legacy/editor-tables/world-tile-info.js';
import { ByteReader } from '../../src/util/bytes.js';
import { ByteWriter } from '../../src/zen/byte-writer.js';

/**
 * The forms of the editor tables the corpus has no sample of (its trailers hold no payload, its world tiles are
 * UE 4.18 ones): each written, read back, and its damaged forms refused with the offset named.
 */
const format = (over: Partial<EditorTableFormat>): EditorTableFormat => ({ ue4: 522, ue5: 1018, packageFlags: 0, fortniteMain: 225, softObjectPathIndices: false, ...over });
const bytesOf = (f: (w: ByteWriter) => void) => {
  const w = new ByteWriter(256);
  f(w);
  return w.finish();
};
const failure = (f: () => unknown): IoStoreError => {
  try {
    f();
  } catch (e) {
    if (e instanceof IoStoreError) return e;
    throw e;
  }
  throw new Error('no error');
};

/** A compressed buffer of `raw` bytes stored with method None: the 64-byte big-endian header, then the bytes. */
function noneBuffer(raw: Uint8Array): Uint8Array {
  const out = new Uint8Array(64 + raw.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0xb7756362);
  v.setUint32(12, 1);
  v.setBigUint64(16, BigInt(raw.length));
  v.setBigUint64(24, BigInt(64 + raw.length));
  out.set(raw, 64);
  return out;
}

describe('package trailer', () => {
  const payload = noneBuffer(new TextEncoder().encode('payload bytes of the test'));
  const trailer = (version: number): LegacyPackageTrailer => ({
    version,
    ...(version === 0 ? { legacyAccessMode: 'local' as const } : {}),
    payloads: [
      { hash: '11'.repeat(20), offsetInFile: 0, compressedSize: payload.length, rawSize: 25, flags: 0, filterFlags: version >= 2 ? 3 : 0, accessMode: 'local' },
      { hash: '22'.repeat(20), offsetInFile: -1, compressedSize: -1, rawSize: 4096, flags: 0, filterFlags: 0, accessMode: 'virtualized' },
      ...(version >= 1 ? [{ hash: '33'.repeat(20), offsetInFile: 5000, compressedSize: 100, rawSize: 200, flags: 0, filterFlags: 0, accessMode: 'referenced' as const }] : []),
    ],
    payloadData: payload,
  });

  it('versions 0, 1 and 2 write and read back; local payloads are located; the footer closes the file', () => {
    for (const version of [0, 1, 2]) {
      const t = trailer(version);
      const prefix = new Uint8Array(100);
      const bytes = new Uint8Array([...prefix, ...bytesOf((w) => writePackageTrailer(w, t))]);
      const r = new ByteReader(bytes, 'trailer');
      r.pos = 100;
      const back = readPackageTrailer(r);
      expect(r.pos).toBe(bytes.length);
      expect(back).toEqual(t);
      // 28-byte header (+1 access mode byte in version 0), 44/45/49-byte entries; the payload after them.
      const entry = [44, 45, 49][version]!;
      const span = trailerPayloadSpan(back, back.payloads[0]!, 100)!;
      expect(span).toEqual({ offset: 100 + 28 + (version === 0 ? 1 : 0) + t.payloads.length * entry, size: payload.length });
      expect(readCompressedBufferHeader(bytes.subarray(span.offset, span.offset + span.size))).toEqual({ method: 'none', blockCount: 1, rawSize: 25, compressedSize: 89 });
      expect(trailerPayloadSpan(back, back.payloads[1]!, 100)).toBeUndefined();
      const view = new DataView(bytes.buffer);
      expect([view.getBigUint64(bytes.length - 20, true), view.getBigUint64(bytes.length - 12, true), view.getUint32(bytes.length - 4, true)]).toEqual([0x29bfca045138de76n, BigInt(bytes.length - 100), 0x9e2a83c1]);
    }
  });

  it('refuses a wrong tag, a payload outside the data, a header length that is not its table, a footer that disagrees', () => {
    const good = bytesOf((w) => writePackageTrailer(w, trailer(2)));
    const damaged = (at: number, v: number, width = 4) => {
      const b = good.slice();
      if (width === 8) new DataView(b.buffer).setBigInt64(at, BigInt(v), true);
      else new DataView(b.buffer).setInt32(at, v, true);
      return failure(() => readPackageTrailer(new ByteReader(b, 'x.uasset')));
    };
    expect(damaged(0, 1).message).toMatch(/^x\.uasset at offset 0x0: the package trailer starts with 0x/);
    expect(damaged(12, 29).message).toMatch(/the trailer header says 29 bytes but its table ends after 175/);
    // The local payload's offset moved past the payload data.
    expect(damaged(28 + 20, 1000, 8).message).toMatch(/payload 0 \(1000, 89 bytes\) lies outside the trailer's 89 bytes of payload data/);
    expect(damaged(good.length - 12, 7, 8).message).toMatch(/the trailer footer says the trailer is 7 bytes, not 284/);
    expect(damaged(8, 9).code).toBe('UNSUPPORTED');
    expect(failure(() => readPackageTrailer(new ByteReader(good.subarray(0, 100), 'x'))).code).toBe('TRUNCATED');
  });
});

describe('world tile info', () => {
  const tile: LegacyWorldTileInfo = {
    position: [1, -2, 3],
    bounds: { min: [-1.5, 2.25, 0], max: [1e10, 3, 4], isValid: 1 },
    layer: { name: 'Layer Ω', reserved0: 0, reserved1: [0, 0], streamingDistance: 25000, distanceStreamingEnabled: false },
    hideInTileView: true,
    parentTilePackageName: '/Game/Maps/Parent',
    lodList: [{ relativeStreamingDistance: 10000, reserved0: 0.5, reserved1: 0, reserved2: 0, reserved3: 7 }],
    zOrder: -3,
  };
  it('UE5 (doubles, 3D), UE 4.18 (floats, 2D) and an unversioned 4.19/4.20 one whose size settles its form', () => {
    const ue5 = format({});
    const b5 = bytesOf((w) => writeWorldTileInfo(w, tile, ue5));
    // Position 12, bounds 6 doubles and a byte, layer (UTF-16 name, reserved, distance, switch), hidden flag, parent, LODs, Z order.
    expect(b5.length).toBe(12 + 49 + (4 + 16 + 12 + 4 + 4) + 4 + (4 + 18) + 4 + 20 + 4);
    expect(readWorldTileInfo(new ByteReader(b5, 't'), ue5, b5.length)).toEqual({ tile, position3d: true });
    const ue418 = format({ ue4: 514, ue5: 0, fortniteMain: 0 });
    const b4 = bytesOf((w) => writeWorldTileInfo(w, tile, ue418));
    expect(b4.length).toBe(b5.length - 4 - 24);
    const flat = { ...tile, position: [1, -2, 0], bounds: { min: [-1.5, 2.25, 0], max: [1e10, 3, 4], isValid: 1 } };
    expect(readWorldTileInfo(new ByteReader(b4, 't'), ue418, b4.length).tile).toEqual(flat);
    // Unknown form: each is tried, the one ending at the next table wins.
    const unknown = format({ ue4: 516, ue5: 0, fortniteMain: undefined });
    for (const fm of [0, FORTNITE_MAIN.WorldCompositionTile3DOffset]) {
      const b = bytesOf((w) => writeWorldTileInfo(w, tile, { ...unknown, fortniteMain: fm }));
      expect(readWorldTileInfo(new ByteReader(b, 't'), unknown, b.length).position3d).toBe(fm === 1);
    }
  });
});

describe('package metadata and gatherable text', () => {
  const name = (index: number) => ({ index, number: 0 });
  it('metadata with soft object paths inline (no list) and by index', () => {
    const inline: LegacyPackageMetaData = {
      objects: [{ object: { packageName: name(1), assetName: name(2), subPath: 'Sub.Päth' }, values: [{ key: name(3), value: 'ToolTip text\nwith a line' }] }],
      root: [{ key: name(4), value: 'ü' }],
    };
    for (const [m, f] of [
      [inline, format({})],
      [{ ...inline, objects: [{ object: 7, values: inline.objects[0]!.values }] }, format({ softObjectPathIndices: true })],
    ] as const) {
      const b = bytesOf((w) => writePackageMetaData(w, m, f));
      const r = new ByteReader(b, 'm');
      expect(readPackageMetaData(r, f)).toEqual(m);
      expect(r.pos).toBe(b.length);
    }
  });

  it('nested localization metadata reads back; a bad type and nesting past 64 levels are refused', () => {
    const texts = [{ namespace: '', sourceString: 'Hello', sourceMetaData: [{ key: 'o', value: { type: 'object' as const, value: [{ key: 's', value: { type: 'string' as const, value: 'v' } }] } }], sites: [{ key: 'K', siteDescription: 'D', editorOnly: false, optional: true, infoMetaData: [], keyMetaData: [{ key: 'b', value: { type: 'boolean' as const, value: false } }] }] }];
    const b = bytesOf((w) => writeGatherableText(w, texts));
    expect(readGatherableText(new ByteReader(b, 'g'), 1)).toEqual(texts);
    const badType = b.slice();
    // The first metadata value's type (after the namespace, the source string and the count and key).
    new DataView(badType.buffer).setInt32(4 + 10 + 4 + 4 + 2, 9, true);
    expect(failure(() => readGatherableText(new ByteReader(badType, 'g'), 1)).message).toMatch(/localization metadata type 9 is not one/);
    const deep = bytesOf((w) => {
      w.i32(0);
      w.i32(0);
      for (let i = 0; i < 100; i++) {
        w.i32(1);
        w.i32(2);
        w.latin1('k');
        w.u8(0);
        w.i32(4);
      }
    });
    expect(failure(() => readGatherableText(new ByteReader(deep, 'g'), 1)).message).toMatch(/nests deeper than 64 levels/);
  });

  it('sub-paths saved before the UTF-8 step: an FString, or UTF-8 without its NUL as some packages have them', () => {
    const read = (f: (w: ByteWriter) => void) => readLegacySubPath(new ByteReader(bytesOf(f), 's'), 'sub-path');
    expect(read((w) => (w.i32(4), w.latin1('abc'), w.u8(0)))).toBe('abc');
    expect(read((w) => (w.i32(-3), w.u16(0x3a9), w.u16(0x61), w.u16(0)))).toBe('Ωa');
    expect(read((w) => (w.i32(3), w.bytes(new Uint8Array([0xc3, 0xa4, 0x62]))))).toBe('äb');
    expect(read((w) => w.i32(0))).toBe('');
  });
});
