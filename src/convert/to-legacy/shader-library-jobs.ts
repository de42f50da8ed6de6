import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { unnamedChunkPath } from '../../layout/unnamed.js';
import type { ShaderChunkSource } from '../shader-libraries.js';

/**
 * A ShaderCode chunk as unpack writes it (`_chunks/ShaderCode/<id>.bin` at the root of the unpack folder), looked
 * for in the folders above a shader library file given on its own.
 */
export function unpackedShaderChunk(libraryFile: string, idHex: string): ShaderChunkSource | undefined {
  for (let dir = dirname(libraryFile), depth = 0; depth < 16; depth++) {
    const p = join(dir, unnamedChunkPath('ShaderCode', idHex));
    if (existsSync(p)) return { read: async () => new Uint8Array(readFileSync(p)) };
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}
