import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LoopCounters, LoopTaskBuilder, runChunkLoop, type LoopTasks } from '../../src/chunks/chunk-loop.js';
import { ContainerReader } from '../../src/cas/container-reader.js';
import { readToc, type IoStoreToc } from '../../src/index.js';
import { buildContainer } from '../../src/pack/container-builder.js';
import { encodeChunkId } from '../../src/toc/chunk-id.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { countCalls, CHUNK_PATH_CALLS } from '../count-calls.js';
import { listFiles, tempDir } from '../tmp.js';

/** Every chunk of `toc` as a task under its own path below `root`, in TOC order. */
function ownPathTasks(toc: IoStoreToc, root: string): LoopTasks {
  const b = new LoopTaskBuilder(root);
  b.addOwnPaths(0, Int32Array.from({ length: toc.chunkCount }, (_, i) => i));
  return b.finish();
}

/** Task t's path as text (LoopTasks.target), or its error's code. */
function targetOrCode(tasks: LoopTasks, t: number, toc: IoStoreToc): string {
  try {
    return tasks.target(t, toc)!;
  } catch (e) {
    return `error ${(e as { code?: string }).code}`;
  }
}

/**
 * Checks targetBytes against target on every task: the same path as UTF-8 where it gives one, none for what it must
 * leave to target (names not plain ASCII, unsafe ones). Returns how many it gave.
 */
function checkTargets(toc: IoStoreToc, root: string): number {
  const tasks = ownPathTasks(toc, root);
  let given = 0;
  for (let t = 0; t < tasks.length; t++) {
    const bytes = tasks.targetBytes(t, toc);
    const text = targetOrCode(tasks, t, toc);
    if (bytes === undefined) continue;
    given++;
    if (Buffer.from(bytes).toString('utf8') !== text) expect(Buffer.from(bytes).toString('utf8'), `task ${t}`).toBe(text);
  }
  return given;
}

const plainPaths = ['Game/Content/A/one.uasset', 'Game/Content/A/two.uasset', 'Game/Content/B/x y (1).ubulk', 'Game/Content/B/...', 'Game/Content/.hidden', 'Game/Content/A/del\u007f.bin', 'top.bin'];
const otherPaths = ['Game/Content/Ä/ñame.uasset', 'Game/Content/A/日本語.bin', 'Game/Content/A/caf\u00e9.bin'];

async function built(dir: string): Promise<string> {
  const paths = [...plainPaths, ...otherPaths];
  const chunks = paths.map((path, i) => ({ id: encodeChunkId({ id: BigInt(i + 1), index: 0, pad: 0, type: 2 }, 'UE5'), data: new Uint8Array(100 + i).fill(i), path }));
  // A chunk the directory index does not name (written below _chunks/ by target alone).
  chunks.push({ id: encodeChunkId({ id: 99n, index: 0, pad: 0, type: 10 }, 'UE5'), data: new Uint8Array([9, 8]), path: undefined as unknown as string });
  const { utoc, ucas } = await buildContainer(chunks, { name: 'Names' });
  writeFileSync(join(dir, 'Names.utoc'), utoc);
  writeFileSync(join(dir, 'Names.ucas'), ucas);
  return join(dir, 'Names.utoc');
}

describe.skipIf(process.platform === 'win32')('LoopTasks.targetBytes: a chunk\'s own path as bytes, no string per chunk', () => {
  it('gives target\'s path as UTF-8 for plain ASCII names and unnamed chunks, and leaves other names to target', async () => {
    const dir = tempDir();
    const toc = readToc(new Uint8Array(readFileSync(await built(dir))));
    const root = join(dir, 'out ü');
    const tasks = ownPathTasks(toc, root);
    const byPath = new Map<string, number>();
    for (let i = 0; i < toc.chunkCount; i++) byPath.set(toc.chunkPath(i) ?? '', i);
    for (const p of plainPaths) expect(tasks.targetBytes(byPath.get(p)!, toc), p).toBeDefined();
    for (const p of otherPaths) expect(tasks.targetBytes(byPath.get(p)!, toc), p).toBeUndefined();
    // An unnamed chunk (_chunks/<type>/<id>.bin): its id's hex written into the bytes, no string per chunk.
    const unnamed = tasks.targetBytes(byPath.get('')!, toc);
    expect(unnamed && Buffer.from(unnamed).toString('utf8')).toBe(join(root, '_chunks', toc.chunkTypeName(byPath.get('')!), `${toc.chunkIdHex(byPath.get('')!)}.bin`));
    expect(checkTargets(toc, root)).toBe(plainPaths.length + 1);
  });

  it('unpacks by it the same files as by path text (finalNames), folders made as it goes', async () => {
    const dir = tempDir();
    const utoc = await built(dir);
    const reader = await ContainerReader.open(utoc);
    const twin = reader.transientTwin() ?? reader;
    const trees: Array<Array<[string, string]>> = [];
    for (const finalNames of [true, false]) {
      const root = join(dir, `out-${finalNames}`);
      const tasks = ownPathTasks(reader.toc, root);
      const counters = new LoopCounters(LoopCounters.create(tasks.length, 1));
      const out = await runChunkLoop({ readers: [twin], tasks, counters, finalNames });
      expect(out.failures).toEqual([]);
      expect(out.done[0]).toBe(reader.toc.chunkCount);
      trees.push(listFiles(root).map((f) => [f, readFileSync(join(root, f)).toString('hex')]));
    }
    expect(trees[0]).toEqual(trees[1]);
    expect(trees[0]).toHaveLength(reader.toc.chunkCount);
    await twin.close();
    if (twin !== reader) await reader.close();
  });

  it('a file that cannot be created by its bytes fails as by its text (a file where its folder should be)', async () => {
    const dir = tempDir();
    const utoc = await built(dir);
    const reader = await ContainerReader.open(utoc);
    const twin = reader.transientTwin() ?? reader;
    const root = join(dir, 'out');
    const tasks = ownPathTasks(reader.toc, root);
    // Folder A exists as a file: every chunk in it fails with target's error, none by its bytes.
    (await import('node:fs')).mkdirSync(join(root, 'Game', 'Content'), { recursive: true });
    writeFileSync(join(root, 'Game', 'Content', 'A'), 'x');
    const counters = new LoopCounters(LoopCounters.create(tasks.length, 1));
    const out = await runChunkLoop({ readers: [twin], tasks, counters, finalNames: true });
    const inA = [...plainPaths, ...otherPaths].filter((p) => p.startsWith('Game/Content/A/')).length;
    expect(out.failures).toHaveLength(inA);
    for (const f of out.failures) expect(f.message).toContain(join(root, 'Game', 'Content', 'A'));
    expect(existsSync(join(root, 'Game', 'Content', 'B', '...'))).toBe(true);
    await twin.close();
    if (twin !== reader) await reader.close();
  });
});

describe.skipIf(!hasCorpus || process.platform === 'win32')('LoopTasks.targetBytes on corpus containers', () => {
  it('gives target\'s path for every chunk it takes, and takes the plain names', () => {
    for (const f of ['ue5-wayoftheninja/WayOfTheNinja-Windows.utoc', 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc']) {
      const toc = readToc(new Uint8Array(readFileSync(corpusPath(f))), { source: f });
      expect(checkTargets(toc, '/out'), f).toBeGreaterThan(0);
    }
  });
});

describe.skipIf(!hasCorpus || process.platform === 'win32')('LoopTasks.targetBytes reads the path tables of a TOC once', () => {
  it('makes no ChunkPaths call per chunk (the tables are taken once per TOC), for the same paths', () => {
    const f = 'ue5-wayoftheninja/WayOfTheNinja-Windows.utoc';
    const toc = readToc(new Uint8Array(readFileSync(corpusPath(f))), { source: f });
    const counted = countCalls(toc.chunkPaths!, CHUNK_PATH_CALLS);
    const tasks = ownPathTasks(toc, '/out');
    const given: string[] = [];
    for (let t = 0; t < tasks.length; t++) {
      const bytes = tasks.targetBytes(t, toc);
      if (bytes !== undefined) given.push(Buffer.from(bytes).toString('utf8'));
    }
    // In a short run the loop runs without TurboFan, where each accessor was a call and property loads per chunk.
    expect(counted.calls).toBe(0);
    expect(given.length).toBeGreaterThan(toc.chunkCount / 2);
    // The same paths as target's (its own calls counted no more).
    for (let t = 0, k = 0; t < tasks.length; t++) if (tasks.targetBytes(t, toc) !== undefined) expect(given[k++]).toBe(targetOrCode(tasks, t, toc));
  });
});
