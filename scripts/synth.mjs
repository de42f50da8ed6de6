// Writes a large synthetic container by repeating one real corpus block, streaming to disk so the generator itself
// stays small. Used by the memory test and the bench; never committed output.
import { openSync, writeSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BlockTable, NO_PARTITION_SIZE, chunkHash, containerIdFromName, encodeChunkId, readToc, serializeToc, buildPerfectHash } from '../dist/index.js';
import { padBlock } from '../dist/index.js';

const corpus = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'corpus');

/**
 * One full-size block (64 KiB uncompressed) of the corpus: stored raw, or in its compressed form; with `rawSize`
 * below 64 KiB, a smaller block (a chunk's last) of at most that many bytes and more than half of it.
 */
export function corpusBlock(method, rawSize = 65536) {
  const variant = { zlib: ['zlib', 'Zlib'], oodle: ['oodle', 'Oodle'], none: ['uncompressed', 'Uncompressed'] }[method];
  const base = join(corpus, 'ue5.8-cue4parse', variant[0]);
  const name = `CUE4ParseFixtures-Minimal-${variant[1]}-Windows`;
  const toc = readToc(new Uint8Array(readFileSync(join(base, `${name}.utoc`))));
  const ucas = readFileSync(join(base, `${name}.ucas`));
  for (let b = 0; b < toc.blockCount; b++) {
    const size = toc.blocks.uncompressedSize(b);
    if (rawSize === 65536 ? size !== 65536 : size > rawSize || size <= rawSize / 2) continue;
    if ((method !== 'none') !== (toc.blocks.method(b) !== 0)) continue;
    const off = toc.blocks.offset(b);
    return { stored: new Uint8Array(ucas.subarray(off, off + toc.blocks.compressedSize(b))), methodName: toc.compressionMethods[toc.blocks.method(b)], size };
  }
  throw new Error('no suitable block');
}

/**
 * Writes <dir>/<name>.utoc/.ucas: `chunks` chunks of `blocksPerChunk` copies of one block (of at most `rawSize`
 * bytes uncompressed, see corpusBlock; a chunk of several blocks needs full ones). Returns sizes.
 */
export async function writeSyntheticContainer(dir, name, { chunks, blocksPerChunk, method = 'none', rawSize = 65536 }) {
  if (blocksPerChunk > 1 && rawSize !== 65536) throw new Error('chunks of several blocks need full-size blocks');
  const { stored, methodName, size } = corpusBlock(method, rawSize);
  const { oodleDecompress, zlibNode } = await import('../dist/index.js');
  const plainBlock = method === 'zlib' ? zlibNode.decompress(stored, size) : method === 'oodle' ? oodleDecompress(stored, size) : stored;
  const padded = padBlock(stored);
  const chunkData = new Uint8Array(plainBlock.length * blocksPerChunk);
  for (let k = 0; k < blocksPerChunk; k++) chunkData.set(plainBlock, k * plainBlock.length);
  const hash = await chunkHash('blake3', chunkData);
  const ids = Array.from({ length: chunks }, (_, i) => encodeChunkId({ id: BigInt(i + 1) * 0x9e3779b97f4a7c15n & 0xffffffffffffffffn, index: 0, pad: 0, type: 2 }, 'UE5'));
  const layout = buildPerfectHash(ids);
  const n = chunks;
  const chunkIds = new Uint8Array(n * 12);
  const blocks = [];
  const fd = openSync(join(dir, `${name}.ucas`), 'w');
  let disk = 0;
  const group = Buffer.concat(Array.from({ length: blocksPerChunk }, () => padded));
  for (let slot = 0; slot < n; slot++) {
    chunkIds.set(ids[layout.slotToInput[slot]], slot * 12);
    for (let k = 0; k < blocksPerChunk; k++) {
      blocks.push({ offset: disk + k * padded.length, compressedSize: stored.length, uncompressedSize: plainBlock.length, method: method === 'none' ? 0 : 1 });
    }
    writeSync(fd, group);
    disk += group.length;
  }
  closeSync(fd);
  const chunkSize = plainBlock.length * blocksPerChunk;
  const header = {
    version: 8, entryCount: n, compressedBlockEntryCount: blocks.length, compressionMethodNameCount: 0, compressionMethodNameLength: 32,
    compressionBlockSize: 65536, directoryIndexSize: 0, partitionCount: 1, containerId: containerIdFromName(name),
    encryptionKeyGuid: new Uint8Array(16), containerFlags: method === 'none' ? 0 : 1, encryptionMethodByte: 0,
    perfectHashSeedsCount: 0, partitionSize: NO_PARTITION_SIZE, chunksWithoutPerfectHashCount: 0, sourceHashCount: 0, encryptionIvCount: 0,
  };
  const metaHashes = new Uint8Array(n * 20);
  for (let i = 0; i < n; i++) metaHashes.set(hash, i * 20);
  const utoc = serializeToc({
    header, chunkIds,
    // Each chunk starts on a block boundary of the uncompressed space, as the engine lays them out.
    chunkOffsets: Float64Array.from({ length: n }, (_, i) => i * Math.ceil(chunkSize / 65536) * 65536),
    chunkLengths: new Float64Array(n).fill(chunkSize),
    perfectHashSeeds: layout.seeds, chunksWithoutPerfectHash: layout.overflow,
    blocks: BlockTable.fromEntries(blocks), encryptionIvs: new Uint8Array(0),
    compressionMethods: method === 'none' ? ['None'] : ['None', methodName], signatures: null, directoryIndexBytes: new Uint8Array(0),
    metaHashes, metaHashSize: 20, metaFlags: new Uint8Array(n).fill(method === 'none' ? 0 : 1), onDemandHashes: null, sourceHashes: null,
  });
  writeFileSync(join(dir, `${name}.utoc`), utoc);
  return { utoc: join(dir, `${name}.utoc`), ucasBytes: disk, rawBytes: chunkSize * n, storedBlock: stored, rawBlockSize: plainBlock.length };
}
