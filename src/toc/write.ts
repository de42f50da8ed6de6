import { IoStoreError } from '../errors.js';
import { writeU40BE } from '../util/bytes.js';
import { CHUNK_ID_SIZE } from './chunk-id.js';
import { concatBytes } from './directory-index.js';
import { COMPRESSION_METHOD_NAME_LENGTH, serializeTocHeader, type TocHeader } from './header.js';
import type { BlockTable } from './compression-blocks.js';
import type { TocSignatures } from './toc.js';
import { ContainerFlags, TocVersion } from './version.js';

/** Everything a .utoc holds, in the shapes IoStoreToc exposes; a parsed TOC can be written back as it is. */
export interface TocContent {
  header: TocHeader;
  chunkIds: Uint8Array;
  chunkOffsets: ArrayLike<number>;
  chunkLengths: ArrayLike<number>;
  perfectHashSeeds: Int32Array;
  chunksWithoutPerfectHash: Int32Array;
  blocks: BlockTable;
  encryptionIvs: Uint8Array;
  compressionMethods: readonly string[];
  signatures: TocSignatures | null;
  directoryIndexBytes: Uint8Array;
  /**
   * The chunk metas as a parsed TOC keeps them (see IoStoreToc.metas): used when the three below are absent, as in
   * `{ ...toc }` (a parsed TOC makes its packed hashes and flags per call, so a spread leaves them out).
   */
  metas?: Uint8Array;
  metaSize?: number;
  metaHashes: Uint8Array;
  metaHashSize: number;
  metaFlags: Uint8Array;
  onDemandHashes: Uint8Array | null;
  sourceHashes: Uint8Array | null;
}

/**
 * Serialises a TOC. Counts in the header are taken from the arrays, so they cannot disagree with the body.
 */
export function serializeToc(t: TocContent): Uint8Array {
  return concatBytes(serializeTocParts(t));
}

/**
 * The TOC's bytes as consecutive pieces (its sections), for a writer that writes them in turn: a TOC of 150,000
 * chunks is ~15 MB, which a copy into one buffer held twice.
 */
export function serializeTocParts(t: TocContent): Uint8Array[] {
  const n = t.chunkIds.length / CHUNK_ID_SIZE;
  const b = t.blocks.count;
  const v = t.header.version;
  const stored = (t.metaHashes as Uint8Array | undefined) === undefined && t.metas !== undefined && t.metaSize !== undefined ? { metas: t.metas, size: t.metaSize, hashSize: t.metaSize === 24 ? 20 : 32 } : undefined;
  if (t.chunkOffsets.length !== n || t.chunkLengths.length !== n || (stored ? stored.metas.length !== n * stored.size : t.metaFlags.length !== n)) {
    throw new IoStoreError('USAGE', 'serializeToc: per-chunk arrays differ in length');
  }
  const methods = t.compressionMethods.slice(1);
  const header: TocHeader = {
    ...t.header,
    entryCount: n,
    compressedBlockEntryCount: b,
    compressionMethodNameCount: methods.length,
    compressionMethodNameLength: COMPRESSION_METHOD_NAME_LENGTH,
    directoryIndexSize: t.directoryIndexBytes.length,
    perfectHashSeedsCount: t.perfectHashSeeds.length,
    chunksWithoutPerfectHashCount: t.chunksWithoutPerfectHash.length,
    sourceHashCount: t.sourceHashes ? t.sourceHashes.length / 20 : 0,
    encryptionIvCount: t.encryptionIvs.length / 12,
    containerFlags: t.signatures ? t.header.containerFlags | ContainerFlags.Signed : t.header.containerFlags & ~ContainerFlags.Signed,
  };
  if (header.perfectHashSeedsCount > 0 && v < TocVersion.PerfectHash) throw new IoStoreError('USAGE', `TOC v${v} cannot hold perfect-hash seeds`);
  if (header.chunksWithoutPerfectHashCount > 0 && v < TocVersion.PerfectHashWithOverflow) throw new IoStoreError('USAGE', `TOC v${v} cannot hold overflow chunks`);
  if (header.encryptionIvCount > 0 && v < TocVersion.ContainerEncryptionMethod) throw new IoStoreError('USAGE', `TOC v${v} cannot hold AES-CTR IVs`);

  const offLen = new Uint8Array(n * 10);
  for (let i = 0; i < n; i++) {
    writeU40BE(offLen, i * 10, t.chunkOffsets[i]!);
    writeU40BE(offLen, i * 10 + 5, t.chunkLengths[i]!);
  }
  const i32s = (a: Int32Array) => {
    const out = new Uint8Array(a.length * 4);
    const dv = new DataView(out.buffer);
    a.forEach((x, i) => dv.setInt32(i * 4, x, true));
    return out;
  };
  const blockBytes = t.blocks.bytes;
  const methodBytes = new Uint8Array(methods.length * COMPRESSION_METHOD_NAME_LENGTH);
  methods.forEach((m, i) => {
    for (let c = 0; c < m.length && c < COMPRESSION_METHOD_NAME_LENGTH - 1; c++) methodBytes[i * COMPRESSION_METHOD_NAME_LENGTH + c] = m.charCodeAt(c);
  });
  const parts: Uint8Array[] = [serializeTocHeader(header), t.chunkIds, offLen, i32s(t.perfectHashSeeds), i32s(t.chunksWithoutPerfectHash), blockBytes, t.encryptionIvs, methodBytes];
  if (t.signatures) {
    const s = t.signatures;
    const hs = new Uint8Array(4);
    new DataView(hs.buffer).setInt32(0, s.tocSignature.length, true);
    parts.push(hs, s.tocSignature, s.blockSignature, s.blockHashes);
  }
  parts.push(t.directoryIndexBytes);
  const metaSize = v >= TocVersion.ReplaceIoChunkHashWithIoHash ? 24 : 33;
  const hashField = metaSize === 24 ? 20 : 32;
  const metas = new Uint8Array(n * metaSize);
  const hashes = stored ? stored.metas : t.metaHashes;
  const hashStride = stored ? stored.size : t.metaHashSize;
  const hashSize = stored ? stored.hashSize : t.metaHashSize;
  const flags = stored ? undefined : t.metaFlags;
  for (let i = 0; i < n; i++) {
    const h = hashes.subarray(i * hashStride, i * hashStride + Math.min(hashSize, hashField));
    metas.set(h, i * metaSize);
    metas[i * metaSize + hashField] = flags ? flags[i]! : stored!.metas[i * stored!.size + stored!.hashSize]!;
  }
  parts.push(metas);
  if (t.onDemandHashes) parts.push(t.onDemandHashes);
  if (t.sourceHashes) parts.push(t.sourceHashes);
  return parts;
}
