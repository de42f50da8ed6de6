import { describe, expect, it } from 'vitest';
import { BlockCache, CodecRegistry, ContainerReader, oodleCodec, parseAesKey, zlibNode } from '../../src/index.js';
import { CORPUS_AES_KEY_HEX, corpusPath } from '../corpus.js';
import { countCalls } from '../count-calls.js';

const KEY = parseAesKey(CORPUS_AES_KEY_HEX);
const variant = (project: string, v: string) => {
  const cap = { uncompressed: 'Uncompressed', zlib: 'Zlib', oodle: 'Oodle', oodleencrypted: 'OodleEncrypted', oodlepartitioned: 'OodlePartitioned' }[v]!;
  return corpusPath(`${project}/${v}/CUE4ParseFixtures-Minimal-${cap}-Windows.utoc`);
};

/** The stored (compressed, decrypted, unpadded) bytes of every block of every chunk, keyed by chunk id. */
async function storedBlocksById(r: ContainerReader): Promise<Map<string, Buffer[]>> {
  const out = new Map<string, Buffer[]>();
  for (let i = 0; i < r.toc.chunkCount; i++) {
    const blocks: Buffer[] = [];
    const first = r.toc.chunkFirstBlock(i);
    for (let b = first; b < first + r.toc.chunkBlockCount(i); b++) {
      const stored = await r.readStoredBlock(b);
      const plain = r.decryptBlock(b, stored);
      blocks.push(Buffer.from(plain.subarray(0, r.toc.blocks.compressedSize(b))));
    }
    out.set(r.toc.chunkIdHex(i), blocks);
  }
  return out;
}

describe.each(['ue5.8-cue4parse', 'ue6.0-cue4parse'])('%s', (project) => {
  it('encrypted and partitioned variants hold byte-identical compressed blocks to the plain Oodle one', async () => {
    const plain = await ContainerReader.open(variant(project, 'oodle'));
    const enc = await ContainerReader.open(variant(project, 'oodleencrypted'), { aesKey: KEY });
    const part = await ContainerReader.open(variant(project, 'oodlepartitioned'));
    try {
      expect(part.toc.partitionCount).toBeGreaterThan(1);
      expect(part.partitions.length).toBe(part.toc.partitionCount);
      const ref = await storedBlocksById(plain);
      for (const other of [enc, part]) {
        const got = await storedBlocksById(other);
        let compared = 0;
        for (const [id, blocks] of got) {
          const want = ref.get(id);
          if (!want) continue; // the container header chunk carries each container's own id
          expect(blocks.length).toBe(want.length);
          blocks.forEach((b, k) => expect(b.equals(want[k]!)).toBe(true));
          compared += blocks.length;
        }
        expect(compared).toBeGreaterThan(100);
      }
      // The partitioned container really spreads blocks over its _sN files.
      const used = new Set(Array.from({ length: part.toc.blockCount }, (_, b) => part.locate(b).partition));
      expect(used.size).toBe(part.toc.partitionCount);
    } finally {
      await Promise.all([plain.close(), enc.close(), part.close()]);
    }
  });

  it('serves any byte range of a chunk, across block boundaries, equal in the raw and Zlib variants', async () => {
    const raw = await ContainerReader.open(variant(project, 'uncompressed'), { cacheBlocks: 2, maxReadSpan: 70_000 });
    const zlib = await ContainerReader.open(variant(project, 'zlib'), { cacheBlocks: 2 });
    try {
      // The biggest chunk spans several blocks.
      let big = 0;
      for (let i = 1; i < raw.toc.chunkCount; i++) if (raw.toc.chunkSize(i) > raw.toc.chunkSize(big)) big = i;
      expect(raw.toc.chunkBlockCount(big)).toBeGreaterThan(3);
      const whole = await raw.readChunk(big);
      const zi = zlib.toc.findChunk(raw.toc.chunkIdBytes(big));
      expect(Buffer.from(await zlib.readChunk(zi)).equals(Buffer.from(whole))).toBe(true);
      const size = whole.length;
      for (const [o, n] of [[0, 1], [65535, 2], [65536, 65536], [100_000, 150_000], [size - 7, 7], [1, size - 1]] as const) {
        expect(Buffer.from(await raw.readRange(big, o, n)).equals(Buffer.from(whole.subarray(o, o + n)))).toBe(true);
        expect(Buffer.from(await zlib.readRange(zi, o, n)).equals(Buffer.from(whole.subarray(o, o + n)))).toBe(true);
      }
      await expect(raw.readRange(big, size - 1, 2)).rejects.toThrow(/outside chunk/);
    } finally {
      await Promise.all([raw.close(), zlib.close()]);
    }
  });
});

describe('eachChunkPieceSync', () => {
  it.each([
    ['uncompressed', 70_000],
    ['uncompressed', undefined],
    ['zlib', undefined],
    ['oodlepartitioned', undefined],
    ['oodleencrypted', 70_000],
  ] as const)('gives every chunk of %s (read span %s) whole and in order, as readChunk does', async (v, span) => {
    const r = await ContainerReader.open(variant('ue5.8-cue4parse', v), { ...(v === 'oodleencrypted' ? { aesKey: KEY } : {}), ...(span ? { maxReadSpan: span } : {}) });
    const twin = r.transientTwin()!;
    try {
      let pieces = 0;
      let spans = 0;
      for (let i = 0; i < r.toc.chunkCount; i++) {
        const parts: Buffer[] = [];
        twin.eachChunkPieceSync(i, (p) => void parts.push(Buffer.from(p)), () => void spans++);
        pieces += parts.length;
        expect(Buffer.concat(parts).equals(Buffer.from(await r.readChunk(i))), `chunk ${i}`).toBe(true);
      }
      // Raw blocks back to back come as one piece per read; other blocks one piece each.
      if (v === 'uncompressed') expect(pieces).toBe(spans);
      else expect(pieces).toBeGreaterThan(r.toc.chunkCount);
    } finally {
      await Promise.all([twin.close(), r.close()]);
    }
  });
});

describe('a transient reader of Oodle blocks', () => {
  it('decodes them in the WebAssembly module\'s memory (no copy out), each span whole', async () => {
    const r = await ContainerReader.open(variant('ue5.8-cue4parse', 'oodle'));
    const twin = r.transientTwin()!;
    const area = oodleCodec.outputArea!(16)!;
    try {
      let inModule = 0;
      for (let i = 0; i < r.toc.chunkCount; i++) {
        const parts: Buffer[] = [];
        for (const span of twin.chunkSpansSync(i)) {
          for (const p of span) {
            if (p.buffer === area.buffer) inModule++;
            parts.push(Buffer.from(p));
          }
        }
        expect(Buffer.concat(parts).equals(Buffer.from(await r.readChunk(i))), `chunk ${i}`).toBe(true);
      }
      expect(inModule).toBeGreaterThan(r.toc.chunkCount / 2);
    } finally {
      await Promise.all([twin.close(), r.close()]);
    }
  });
});

describe('errors', () => {
  it('an encrypted container without a key is refused up front', async () => {
    await expect(ContainerReader.open(variant('ue5.8-cue4parse', 'oodleencrypted'))).rejects.toMatchObject({ code: 'NEEDS_KEY' });
  });

  it('a block with a codec that is not registered names the block and the codec', async () => {
    const r = await ContainerReader.open(variant('ue5.8-cue4parse', 'oodle'), { codecs: new CodecRegistry([zlibNode]) });
    try {
      let b = 0;
      while (r.toc.blocks.method(b) === 0) b++;
      await expect(r.readBlock(b)).rejects.toThrow(new RegExp(`block ${b} \\(Oodle\\).*no decoder for compression method "Oodle"`));
    } finally {
      await r.close();
    }
  });

  it.each(['uncompressed', 'zlib'])('a chunk whose offset puts its bytes past what its blocks decode to is refused (%s)', async (v) => {
    // A chunk offset not on a block boundary (or a block shorter than the block size before a chunk's last) once gave a
    // short chunk: unpack wrote a truncated file and verify hashed leftover bytes of the previous chunk.
    const r = await ContainerReader.open(variant('ue5.8-cue4parse', v));
    try {
      const bs = r.toc.blockSize;
      let i = 0;
      const fits = (k: number) => (r.toc.chunkOffset(k) + r.toc.chunkSize(k)) % bs !== 0 && r.toc.chunkSize(k) > 16;
      while (!fits(i)) i++;
      const good = await r.readChunk(i);
      expect(good.length).toBe(r.toc.chunkSize(i));
      const last = r.toc.chunkFirstBlock(i) + r.toc.chunkBlockCount(i) - 1;
      (r.toc.chunkOffsets as Float64Array)[i]! += 16;
      const err = await r.readChunk(i).then(() => undefined, (e: unknown) => e);
      expect(err).toMatchObject({ code: 'BAD_VALUE' });
      expect(String((err as Error).message)).toMatch(new RegExp(`block ${last} decodes to ${r.toc.blocks.uncompressedSize(last)} bytes but chunk ${i} \\(${r.toc.chunkIdHex(i)}\\) needs bytes`));
      expect(() => [...r.transientTwin()!.chunkSpansSync(i)]).toThrow(/needs bytes/);
      expect(() => r.transientTwin()!.eachChunkPieceSync(i, () => {})).toThrow(/needs bytes/);
    } finally {
      await r.close();
    }
  });
});

describe('BlockCache', () => {
  it('keeps at most its capacity, dropping the least recently used', () => {
    const c = new BlockCache(2);
    c.set(1, new Uint8Array(1));
    c.set(2, new Uint8Array(2));
    c.get(1);
    c.set(3, new Uint8Array(3));
    expect(c.get(2)).toBeUndefined();
    expect(c.get(1)?.length).toBe(1);
    expect(c.get(3)?.length).toBe(3);
  });
});

describe('eachChunkPieceSync of a plain reader (neither encrypted nor partitioned)', () => {
  /** Counts calls of the block table's accessors on `r` from now on. */
  const countBlockCalls = (r: ContainerReader) => countCalls(r.toc.blocks, ['offset', 'compressedSize', 'uncompressedSize', 'method']);

  it.each([
    ['uncompressed', 70_000],
    ['uncompressed', 200_000],
    ['uncompressed', undefined],
    ['zlib', 70_000],
    ['zlib', undefined],
  ] as const)('reads %s (read span %s) in the spans chunkSpansSync reads, stored runs with no block accessor call', async (v, span) => {
    const r = await ContainerReader.open(variant('ue5.8-cue4parse', v), span ? { maxReadSpan: span } : {});
    const twin = r.transientTwin()!;
    try {
      // Spans and bytes as chunkSpansSync (spanEnd through the accessors) gives them, counted before the calls are.
      const expected: Array<{ spans: number; bytes: Buffer }> = [];
      for (let i = 0; i < r.toc.chunkCount; i++) {
        const parts: Buffer[] = [];
        let spans = 0;
        for (const s of twin.chunkSpansSync(i)) {
          spans++;
          for (const p of s) parts.push(Buffer.from(p));
        }
        expected.push({ spans, bytes: Buffer.concat(parts) });
      }
      let blocks = 0;
      let allSpans = 0;
      for (let i = 0; i < r.toc.chunkCount; i++) blocks += r.toc.chunkBlockCount(i);
      const counted = countBlockCalls(twin);
      for (let i = 0; i < r.toc.chunkCount; i++) {
        const parts: Buffer[] = [];
        let spans = 0;
        twin.eachChunkPieceSync(i, (p) => void parts.push(Buffer.from(p)), () => void spans++);
        expect(spans, `chunk ${i}`).toBe(expected[i]!.spans);
        expect(Buffer.concat(parts).equals(expected[i]!.bytes), `chunk ${i}`).toBe(true);
        allSpans += spans;
      }
      // A stored container's chunks are found, checked and read from the block table's bytes: no call per block (a
      // short run's loop runs without TurboFan, where each was a call and property loads). Compressed blocks are
      // placed in their span from the bytes too, and decoded through decodeBlock's three accessors (its codec: one
      // more a span).
      if (v === 'uncompressed') expect(counted.calls).toBe(0);
      else expect(counted.calls).toBeLessThanOrEqual(3 * blocks + allSpans);
    } finally {
      await Promise.all([twin.close(), r.close()]);
    }
  });
});
