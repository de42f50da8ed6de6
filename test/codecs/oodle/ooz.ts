import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CORPUS } from '../../corpus.js';

/**
 * ooz-decode (../shared/tools/ooz): an independent native Oodle decoder, GPL, used here only to check that the
 * streams our encoder writes decode the same in a second implementation. Tests that use it skip when it is absent.
 */
export const OOZ = resolve(CORPUS, '../tools/ooz/ooz-decode');
export const hasOoz = existsSync(OOZ);

/** Decodes every [stream, size] with ooz in one run (its block-file mode); returns the outputs in order. */
export function oozDecode(items: readonly (readonly [Uint8Array, number])[]): Uint8Array[] {
  const dir = mkdtempSync(join(tmpdir(), 'ooz-'));
  try {
    const parts: Buffer[] = [];
    for (const [stream, size] of items) {
      const h = Buffer.alloc(8);
      h.writeUInt32LE(stream.length, 0);
      h.writeUInt32LE(size, 4);
      parts.push(h, Buffer.from(stream.buffer, stream.byteOffset, stream.length));
    }
    writeFileSync(join(dir, 'in.bin'), Buffer.concat(parts));
    // Its block mode also times a few passes: "0" seconds keeps that to the minimum.
    execFileSync(OOZ, ['-B', '0', join(dir, 'in.bin'), join(dir, 'out.bin')], { stdio: 'pipe' });
    const all = new Uint8Array(readFileSync(join(dir, 'out.bin')));
    const out: Uint8Array[] = [];
    let at = 0;
    for (const [, size] of items) {
      out.push(all.subarray(at, at + size));
      at += size;
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
