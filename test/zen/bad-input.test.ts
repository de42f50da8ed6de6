import { describe, expect, it } from 'vitest';
import { IoStoreError } from '../../src/errors.js';
import {
  parseContainerHeader,
  parseLoaderInitialLoadMeta,
  parseNameHashes,
  parseNameStrings,
  parseScriptObjects,
  parseZenPackage,
  serializeContainerHeader,
  type ContainerHeader,
} from '../../src/zen/index.js';
import { chunksOfType, rawContainers, read } from './helpers.js';

/** Runs `f` and returns the IoStoreError it throws, undefined if it returns; any other exception fails the test. */
function outcome(f: () => unknown): IoStoreError | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    if (!(e instanceof IoStoreError)) throw new Error(`expected IoStoreError, got ${String(e)}`, { cause: e });
    return e;
  }
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every cut point below `limit`, or `count` spread evenly when there are more. */
function cutPoints(limit: number, count = 600): number[] {
  if (limit <= count) return Array.from({ length: limit }, (_, i) => i);
  return Array.from({ length: count }, (_, i) => Math.floor((i * limit) / count));
}

const v5Header = (() => {
  const c = rawContainers().find((x) => x.rel.includes('ue5.8-cue4parse/uncompressed'))!;
  return c.chunk(chunksOfType(c, 'ContainerHeader')[0]!);
})();

const ue4Header = (): ContainerHeader => ({
  version: 'Initial',
  containerId: 42n,
  packages: [
    { packageId: 1n, exportBundlesSize: 100, exportCount: 1, exportBundleCount: 1, loadOrder: 0, importedPackages: [2n], shaderMapHashes: [] },
    { packageId: 2n, exportBundlesSize: 200, exportCount: 2, exportBundleCount: 1, loadOrder: 1, importedPackages: [], shaderMapHashes: [] },
  ],
  optionalSegmentPackages: [],
  nameMap: { names: ['A'], hashes: [1n] },
  localizedPackages: [],
  packageRedirects: [{ sourcePackageId: 3n, targetPackageId: 1n }],
  culturePackageMap: [{ culture: 'fr', packages: [{ sourcePackageId: 1n, localizedPackageId: 5n }] }],
  softPackageReferences: null,
  shaderMapHashSize: 20,
  trailingPadding: 0,
});

describe('container header: truncated and corrupt input', () => {
  const inputs: [string, Uint8Array][] = [
    ['UE5.8 (v5)', v5Header],
    ['UE4 Initial', serializeContainerHeader(ue4Header())],
    ['PreInitial', serializeContainerHeader({ ...ue4Header(), version: 'PreInitial', packages: ue4Header().packages.map((p) => ({ ...p, exportBundlesSize: undefined, loadOrder: undefined })) })],
    ['UE 5.0 prefix', read('zen-assets/UE5.0/ContainerHeader_1.bin').subarray(0, 4096)],
  ];

  it.each(inputs)('%s: every cut gives a clear IoStoreError', (name, bytes) => {
    for (const n of cutPoints(bytes.length)) {
      const e = outcome(() => parseContainerHeader(bytes.subarray(0, n), { source: name }));
      expect(e, `cut at ${n}`).toBeInstanceOf(IoStoreError);
      expect(e!.message).toMatch(/at offset 0x[0-9a-f]+/);
      expect(e!.message.startsWith(name)).toBe(true);
    }
  });

  it('absurd counts and offsets are rejected before anything is allocated', () => {
    const patch = (at: number, v: number) => {
      const b = v5Header.slice();
      new DataView(b.buffer).setUint32(at, v, true);
      return b;
    };
    // Package id count, store-entries size, a view's count and offset.
    for (const [at, v] of [[16, 0xffffffff], [16, 0x7fffffff], [16 + 4 + 97 * 8, 0xfffffff0], [16 + 4 + 97 * 8 + 4, 0xffffffff], [16 + 4 + 97 * 8 + 8 + 4, 0xffffffff]] as const) {
      const e = outcome(() => parseContainerHeader(patch(at, v)));
      expect(e, `u32 at ${at} = ${v}`).toBeInstanceOf(IoStoreError);
    }
    expect(outcome(() => parseContainerHeader(patch(4, 99)))?.code).toBe('UNSUPPORTED');
    expect(outcome(() => parseContainerHeader(new Uint8Array(0)))?.code).toBe('TRUNCATED');
    expect(outcome(() => parseContainerHeader(patch(16, 0xffffffff)))?.message).toMatch(/package ids: 4294967295 entries of 8 bytes need/);
  });

  it('random byte corruption never escapes as another exception type', () => {
    const rnd = mulberry32(1234);
    for (const [, bytes] of [['v5', v5Header], ['ue4', serializeContainerHeader(ue4Header())]] as const) {
      for (let k = 0; k < 400; k++) {
        const b = bytes.slice();
        const flips = 1 + Math.floor(rnd() * 4);
        for (let f = 0; f < flips; f++) b[Math.floor(rnd() * b.length)] = Math.floor(rnd() * 256);
        outcome(() => parseContainerHeader(b));
      }
    }
  });

  it('nonzero trailing bytes are reported', () => {
    const b = new Uint8Array(v5Header.length + 3);
    b.set(v5Header);
    b[b.length - 1] = 1;
    expect(outcome(() => parseContainerHeader(b))?.message).toMatch(/unexplained bytes/);
  });
});

describe('zen package: truncated and corrupt input', () => {
  const c = rawContainers().find((x) => x.rel.includes('ue6.0-cue4parse/uncompressed'))!;
  const fixture = c.chunk(chunksOfType(c, 'ExportBundleData')[0]!);
  const inputs: [string, Uint8Array][] = [
    ['UE4.27 T_Emissive', read('zen-assets/UE4.27/T_Emissive.uasset')],
    ['UE4.27 SPR_UI_Battle (2 bundles)', read('zen-assets/UE4.27/SPR_UI_Battle.uasset')],
    ['UE5.4 Randy', read('zen-assets/UE5.4/Randy.uzenasset')],
    ['UE5.5 SM_Cube', read('zen-assets/UE5.5/SM_Cube.uzenasset')],
    ['UE6.0 fixture', fixture],
  ];

  it.each(inputs)('%s: every cut inside the header gives an IoStoreError', (name, bytes) => {
    const headerSize = parseZenPackage(bytes).headerSize;
    for (const n of cutPoints(headerSize)) {
      const e = outcome(() => parseZenPackage(bytes.subarray(0, n), { source: name }));
      expect(e, `cut at ${n}`).toBeInstanceOf(IoStoreError);
      expect(e!.message).toMatch(/at offset 0x[0-9a-f]+/);
    }
    // The header alone is enough.
    expect(parseZenPackage(bytes.subarray(0, headerSize)).headerSize).toBe(headerSize);
  });

  it.each(inputs)('%s: random corruption of the header gives a result or an IoStoreError', (_name, bytes) => {
    const headerSize = parseZenPackage(bytes).headerSize;
    const rnd = mulberry32(headerSize);
    for (let k = 0; k < 300; k++) {
      const b = bytes.slice(0, headerSize);
      const flips = 1 + Math.floor(rnd() * 3);
      for (let f = 0; f < flips; f++) {
        const at = Math.floor(rnd() * Math.min(headerSize, 128));
        b[at] = rnd() < 0.5 ? 0xff : Math.floor(rnd() * 256);
      }
      outcome(() => parseZenPackage(b));
    }
  });

  it('absurd values are rejected with clear messages', () => {
    const b = read('zen-assets/UE5.5/SM_Cube.uzenasset').slice();
    const v = new DataView(b.buffer);
    v.setUint32(4, 0x7fffffff, true); // HeaderSize
    expect(outcome(() => parseZenPackage(b))?.message).toMatch(/HeaderSize 2147483647 exceeds/);
    const c2 = read('zen-assets/UE5.5/SM_Cube.uzenasset').slice();
    new DataView(c2.buffer).setUint32(52, 0xffffffff, true); // name count
    expect(outcome(() => parseZenPackage(c2))).toBeInstanceOf(IoStoreError);
    const legacy = read('zen-assets/UE5.5/SM_Cube.uasset');
    expect(outcome(() => parseZenPackage(legacy))?.code).toBe('BAD_MAGIC');
    expect(outcome(() => parseZenPackage(new Uint8Array(3)))?.code).toBe('TRUNCATED');
  });
});

describe('global chunks: truncated and corrupt input', () => {
  const g = rawContainers().find((x) => x.rel.includes('ue5.1-templeofgiants'))!;
  const so = g.chunk(chunksOfType(g, 'ScriptObjects')[0]!);

  it('ScriptObjects cut at 15 points, or with absurd counts', () => {
    for (const n of cutPoints(so.length, 15)) expect(outcome(() => parseScriptObjects(so.subarray(0, n))), `cut at ${n}`).toBeInstanceOf(IoStoreError);
    const b = so.slice();
    new DataView(b.buffer).setUint32(0, 0xfffffff0, true);
    expect(outcome(() => parseScriptObjects(b))?.code).toBe('TRUNCATED');
    const extra = new Uint8Array(so.length + 1);
    extra.set(so);
    expect(outcome(() => parseScriptObjects(extra))?.code).toBe('SIZE_MISMATCH');
  });

  it('UE4 global chunks', () => {
    const meta = read('zen-assets/UE4.27/LoaderInitialLoadMeta_1.bin');
    expect(outcome(() => parseLoaderInitialLoadMeta(meta.subarray(0, 1000)))?.code).toBe('TRUNCATED');
    const neg = meta.slice(0, 8);
    new DataView(neg.buffer).setInt32(0, -5, true);
    expect(outcome(() => parseLoaderInitialLoadMeta(neg))?.code).toBe('BAD_VALUE');
    const names = read('zen-assets/UE4.27/LoaderGlobalNames_1.bin');
    expect(outcome(() => parseNameStrings(names.subarray(0, names.length - 1)))?.code).toBe('TRUNCATED');
    expect(outcome(() => parseNameHashes(new Uint8Array(12)))?.code).toBe('BAD_VALUE');
    expect(outcome(() => parseNameHashes(new Uint8Array(16)))?.message).toMatch(/hash algorithm id 0x0/);
  });
});
