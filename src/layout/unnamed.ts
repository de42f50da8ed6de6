import type { IoStoreToc } from '../toc/toc.js';

/** Where an unpack puts chunks the directory index does not name: a fact unpack, pack, to-legacy and the page share. */

/** The folder of an unpack holding the chunks that have no directory-index name. */
export const UNNAMED_CHUNKS_FOLDER = '_chunks';

/** Output path of a chunk with no directory-index name: by type and chunk id. */
export function unnamedChunkPath(type: string, idHex: string): string {
  return `${UNNAMED_CHUNKS_FOLDER}/${type}/${idHex}.bin`;
}

/** Where unpack writes chunk i of a container: its directory-index path, else unnamedChunkPath. */
export function chunkOutputPath(toc: IoStoreToc, i: number): string {
  return toc.chunkPath(i) ?? unnamedChunkPath(toc.chunkTypeName(i), toc.chunkIdHex(i));
}
