import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toLegacy } from '../../src/convert/index.js';
import { FileWriter, useWriterThread, WRITER_THREAD_MIN_FILES } from '../../src/convert/file-writer.js';
import { tempFilesInFlight } from '../../src/layout/output.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { listFiles, tempDir } from '../tmp.js';

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

describe('FileWriter', () => {
  const modes = [false, true].flatMap((thread) => [false, true].map((finalNames) => ({ thread, finalNames, label: `${thread ? 'on a writer thread' : 'on the calling thread'}${finalNames ? ', under final names (a staged folder)' : ''}` })));
  for (const { thread, finalNames, label } of modes) {
    it(`${label}: groups land whole, under their names, with no temporary file left`, async () => {
      const dir = tempDir();
      const w = new FileWriter(thread, finalNames);
      expect(w.threaded).toBe(thread);
      const done: Promise<number>[] = [];
      for (let k = 0; k < 20; k++) {
        done.push(w.write([
          { path: join(dir, `d${k % 3}`, `p${k}.uasset`), pieces: [bytes(100 + k, k)] },
          // Views of a larger buffer and several pieces per file.
          { path: join(dir, `d${k % 3}`, `p${k}.uexp`), pieces: [bytes(5000, k).subarray(10, 3000), bytes(7, k)] },
        ]));
      }
      w.flush();
      const written = await Promise.all(done);
      await w.close();
      expect(written.reduce((a, b) => a + b, 0)).toBe(20 * (2990 + 7) + 20 * 100 + (19 * 20) / 2);
      const files = listFiles(dir);
      expect(files.length).toBe(40);
      expect(files.every((f) => !f.includes('iostore-tmp'))).toBe(true);
      expect(new Uint8Array(readFileSync(join(dir, 'd1', 'p4.uasset')))).toEqual(bytes(104, 4));
      const uexp = new Uint8Array(readFileSync(join(dir, 'd2', 'p5.uexp')));
      expect(uexp).toEqual(Uint8Array.from([...bytes(5000, 5).subarray(10, 3000), ...bytes(7, 5)]));
      expect([...tempFilesInFlight].filter((t) => t.startsWith(dir))).toEqual([]);
    });

    it(`${label}: a group that cannot be written fails as one IoStoreError naming the path, and leaves nothing`, async () => {
      const dir = tempDir();
      // A file where a folder is needed.
      writeFileSync(join(dir, 'blocker'), 'x');
      const w = new FileWriter(thread, finalNames);
      const bad = w.write([
        { path: join(dir, 'ok.uasset'), pieces: [bytes(10, 1)] },
        { path: join(dir, 'blocker', 'x.uexp'), pieces: [bytes(10, 2)] },
      ]);
      const good = w.write([{ path: join(dir, 'fine.bin'), pieces: [bytes(3, 3)] }]);
      w.flush();
      await expect(bad).rejects.toMatchObject({ name: 'IoStoreError', file: expect.stringContaining('blocker') });
      expect(await good).toBe(3);
      await w.close();
      // All of the group or none of it: the first file never got its final name, or lost it again.
      expect(listFiles(dir).sort()).toEqual(['blocker', 'fine.bin']);
    });
  }

  it('starts a thread only when asked and for enough files', () => {
    expect(useWriterThread(WRITER_THREAD_MIN_FILES - 1, 1)).toBe(false);
    expect(useWriterThread(100_000, 0)).toBe(false);
    expect(useWriterThread(100_000, undefined)).toBe(false);
  });
});

describe.skipIf(!hasCorpus)('to-legacy writes the same files on the calling thread and with a writer thread', () => {
  it('ue5.8-cue4parse/uncompressed: byte-identical trees; bytesWritten is the sum of the files', async () => {
    const a = tempDir();
    const b = tempDir();
    const input = corpusPath('ue5.8-cue4parse/uncompressed');
    const r0 = await toLegacy([input], a, { threads: 0 });
    const r1 = await toLegacy([input], b, { threads: 1 });
    expect([r0.failures, r1.failures]).toEqual([[], []]);
    const files = listFiles(a).sort();
    expect(listFiles(b).sort()).toEqual(files);
    expect(files.length).toBe(r0.filesWritten);
    let total = 0;
    for (const f of files) {
      const x = readFileSync(join(a, f));
      expect(Buffer.compare(x, readFileSync(join(b, f))), f).toBe(0);
      total += statSync(join(a, f)).size;
    }
    // Writes finish out of order: the count must not lose any (it once kept a few kilobytes of 2.4 MiB).
    expect(r0.bytesWritten).toBe(total);
    expect(r1.bytesWritten).toBe(total);
    expect(r1.filesWritten).toBe(r0.filesWritten);
    expect([r0.threads, r1.threads]).toEqual([0, availableParallelism() > 1 ? 1 : 0]);
    // A folder that does not exist yet is staged beside it and appears whole, with the same files.
    const parent = tempDir();
    const fresh = join(parent, 'deeper', 'legacy');
    const r2 = await toLegacy([input], fresh, { threads: 0 });
    expect(r2.failures).toEqual([]);
    expect(listFiles(fresh).sort()).toEqual(files);
    expect(readdirSync(join(parent, 'deeper'))).toEqual(['legacy']);
  }, 20_000);
});
