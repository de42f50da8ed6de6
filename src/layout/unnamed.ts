/** Where an unpack puts chunks the directory index does not name: a fact unpack, pack, to-legacy and the page share. */

/** The folder of an unpack holding the chunks that have no directory-index name. */
export const UNNAMED_CHUNKS_FOLDER = '_chunks';

/** Output path of a chunk with no directory-index name: by type and chunk id. */
export function unnamedChunkPath(type: string, idHex: string): string {
  return `${UNNAMED_CHUNKS_FOLDER}/${type}/${idHex}.bin`;
}
