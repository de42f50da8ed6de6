// A pak worker (see pak-pool.ts): opens the paks it is asked about and writes whole files, one task at a time.
import { workerData } from 'node:worker_threads';
import { codecsFromRecipes, type CodecRegistry } from '../codecs/registry.js';
import type { PakArchive } from '../pak/archive.js';
import { openPakFile } from '../pak/pak-file.js';
import { serveTasks } from '../util/worker-pool.js';
import { writeFileAtomic } from '../layout/output.js';
import type { PakTask, PakWorkerSetup } from './pak-pool.js';

const setup = workerData as PakWorkerSetup;
let codecs: Promise<CodecRegistry> | undefined;
const archives = new Map<number, Promise<PakArchive>>();

function archive(k: number): Promise<PakArchive> {
  let a = archives.get(k);
  if (!a) {
    const o = setup.paks[k]!;
    const key = o.aesKey;
    a = openPakFile(o.pak, { sync: true, ...(key ? { keyFor: () => key } : {}) });
    archives.set(k, a);
  }
  return a;
}

serveTasks<PakTask, { bytes: number }>(async (task) => {
  codecs ??= codecsFromRecipes(setup.recipes);
  const a = await archive(task.pak);
  const entry = a.pak.entries[task.entry]!;
  const bytes = await writeFileAtomic(task.target, a.read(entry, await codecs, { verify: task.verify }), undefined, { sync: true, tempPath: task.tmp });
  return { result: { bytes } };
});
