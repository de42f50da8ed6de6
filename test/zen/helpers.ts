import { existsSync, readFileSync } from 'node:fs';
import { readToc, type IoStoreToc } from '../../src/index.js';
import { ByteReader } from '../../src/util/bytes.js';
import { corpusFiles, corpusPath } from '../corpus.js';

export const read = (rel: string): Uint8Array => new Uint8Array(readFileSync(corpusPath(rel)));

/** A corpus container whose .ucas can be read directly: one partition, not encrypted, every block stored raw. */
export interface RawContainer {
  rel: string;
  toc: IoStoreToc;
  chunk(i: number): Uint8Array;
}

let cached: RawContainer[] | undefined;

export function rawContainers(): RawContainer[] {
  if (cached) return cached;
  cached = [];
  for (const rel of corpusFiles('.utoc')) {
    const ucasRel = rel.replace(/\.utoc$/, '.ucas');
    if (!existsSync(corpusPath(ucasRel))) continue;
    const toc = readToc(read(rel), { source: rel });
    if (toc.isEncrypted || toc.partitionCount > 1) continue;
    let raw = true;
    for (let b = 0; b < toc.blockCount && raw; b++) raw = toc.blocks.method(b) === 0;
    if (!raw) continue;
    const ucas = read(ucasRel);
    cached.push({
      rel,
      toc,
      chunk(i: number): Uint8Array {
        const out = new Uint8Array(toc.chunkSize(i));
        let o = 0;
        for (let b = toc.chunkFirstBlock(i), e = b + toc.chunkBlockCount(i); b < e; b++) {
          const off = toc.blocks.offset(b);
          const n = toc.blocks.uncompressedSize(b);
          out.set(ucas.subarray(off, off + n), o);
          o += n;
        }
        return out;
      },
    });
  }
  return cached;
}

/** Indices of a container's chunks of one type. */
export function chunksOfType(c: RawContainer, type: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < c.toc.chunkCount; i++) if (c.toc.chunkTypeName(i) === type) out.push(i);
  return out;
}

export const PACKAGE_FILE_TAG = 0x9e2a83c1;

export function isLegacyPackage(b: Uint8Array): boolean {
  return b.length >= 4 && new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(0, true) === PACKAGE_FILE_TAG;
}

/**
 * Just enough of a cooked legacy FPackageFileSummary (.uasset, UE 4.27 / 5.0-5.5 layout) to reach ExportCount.
 * Cooked packages have PKG_FilterEditorOnly (no LocalizationId); unversioned UE5 files are read as 5.x (soft object
 * path list present).
 */
export function legacySummary(bytes: Uint8Array): { totalHeaderSize: number; nameCount: number; exportCount: number; exportOffset: number; importCount: number; importOffset: number } {
  const r = new ByteReader(bytes, 'legacy summary');
  if (r.u32() !== PACKAGE_FILE_TAG) throw new Error('not a legacy package');
  const legacy = r.i32();
  if (legacy !== -7 && legacy !== -8) throw new Error(`unexpected legacy file version ${legacy}`);
  r.i32(); // LegacyUE3Version
  r.i32(); // FileVersionUE4
  const ue5 = legacy <= -8;
  const fileVersionUE5 = ue5 ? r.i32() : 0;
  if (fileVersionUE5 >= 1016) throw new Error('PackageSavedHash summary layout not handled');
  r.i32(); // licensee
  const customCount = r.i32();
  r.skip(customCount * 20);
  const totalHeaderSize = r.i32();
  r.fstring();
  const flags = r.u32();
  const nameCount = r.i32();
  r.i32(); // NameOffset
  if (ue5 && (fileVersionUE5 === 0 || fileVersionUE5 >= 1008)) r.skip(8); // SoftObjectPathsCount/Offset
  if ((flags & 0x80000000) === 0) r.fstring(); // LocalizationId
  r.skip(8); // GatherableTextDataCount/Offset
  const exportCount = r.i32();
  const exportOffset = r.i32();
  const importCount = r.i32();
  const importOffset = r.i32();
  return { totalHeaderSize, nameCount, exportCount, exportOffset, importCount, importOffset };
}

/** Exact u64 values of a JSON array field (JSON.parse would round numbers above 2^53). */
export function jsonU64Array(text: string, field: string): bigint[] {
  const m = new RegExp(`"${field}"\\s*:\\s*\\[([^\\]]*)\\]`).exec(text);
  if (!m) throw new Error(`no ${field} in JSON`);
  return m[1]!.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => BigInt(s));
}
