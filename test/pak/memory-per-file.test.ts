import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAheadSource, type PakByteSource } from '../../src/pak/archive.js';

const root = resolve(__dirname, '../..');

/** A source of `bytes` that can read into the caller's buffer; counts the buffers it hands out of its own. */
function intoSource(bytes: Uint8Array): PakByteSource & { ownBuffers: number } {
  const src = {
    size: bytes.length,
    ownBuffers: 0,
    read: async (o: number, n: number) => {
      src.ownBuffers++;
      return bytes.slice(o, Math.min(bytes.length, o + n));
    },
    readInto: async (o: number, into: Uint8Array) => {
      const piece = bytes.subarray(o, Math.min(bytes.length, o + into.length));
      into.set(piece);
      return piece.length;
    },
  };
  return src;
}

describe('memory per pak file', () => {
  it('the read-ahead window is one buffer refilled, not a new one per window (unpack and verify of a 50,000-file pak)', async () => {
    const bytes = new Uint8Array(1 << 20).map((_, k) => (k * 7) & 255);
    const inner = intoSource(bytes);
    const src = readAheadSource(inner, 4096);
    const buffers = new Set<ArrayBufferLike>();
    for (let at = 0; at + 100 < bytes.length; at += 1000) {
      const piece = await src.read(at, 100);
      expect(Array.from(piece)).toEqual(Array.from(bytes.subarray(at, at + 100)));
      buffers.add(piece.buffer);
    }
    expect(buffers.size).toBe(1);
    expect(inner.ownBuffers).toBe(0);
    // A read of a window or more still passes through.
    expect((await src.read(0, 8192)).length).toBe(8192);
    expect(inner.ownBuffers).toBe(1);
  });

  it('writePak keeps each file in packed arrays: a few dozen bytes a file, not an object, hash array and block list', () => {
    // Retained heap and array buffers after a full collection when the last file is written (every entry held,
    // the index not yet built), less before the write, per file: 2,000 files against 10,000, each in its own process.
    const run = (n: number) => {
      const script = `
        const { writePak } = await import(${JSON.stringify(join(root, process.env.IOSTORE_TEST_DIST ?? 'dist', 'pak/pak-writer.js'))});
        const data = [new Uint8Array([1, 2, 3, 4])];
        const read = () => data;
        const files = Array.from({ length: ${n} }, (_, i) => ({ path: 'Game/Content/D' + String(Math.floor(i / 300)).padStart(3, '0') + '/F' + String(i).padStart(6, '0') + '.ubulk', size: 4, read }));
        const retained = () => { globalThis.gc(); globalThis.gc(); const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
        // The pak's bytes go nowhere: only what the writer keeps is measured.
        const sink = { write: async () => {}, truncate: async () => {} };
        // A first pak of a few files: the writer's code is compiled before the measure.
        await writePak(sink, files.slice(0, 50), { version: 11 });
        const before = retained();
        let at = 0;
        let done = 0;
        await writePak(sink, files, { version: 11, onFile: () => { if (++done === files.length) at = retained(); } });
        console.log(JSON.stringify(at - before));
      `;
      return Number(execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n').pop());
    };
    const perFile = (run(10_000) - run(2000)) / 8000;
    console.log(`writePak keeps ${perFile.toFixed(0)} bytes a file`);
    expect(perFile).toBeLessThan(160);
  });
});
