import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultCodecs, KeyRing, parseAesKey, unpack, zlibNode, type Codec } from '../../src/index.js';
import { CORPUS_AES_KEY_HEX, corpusPath } from '../corpus.js';
import { listFiles, tempDir } from '../tmp.js';

const tmp = tempDir();
let n = 0;
const out = () => join(tmp, `out${n++}`);
const keys = () => new KeyRing().add(parseAesKey(CORPUS_AES_KEY_HEX));

/** Every file of a tree with its bytes, for comparing two unpacks of the same input. */
function tree(dir: string): Map<string, Buffer> {
  return new Map(listFiles(dir).map((f) => [f, readFileSync(join(dir, f))]));
}

function expectSameTree(a: string, b: string): void {
  const ta = tree(a);
  const tb = tree(b);
  expect([...tb.keys()]).toEqual([...ta.keys()]);
  for (const [f, bytes] of ta) expect(tb.get(f)!.equals(bytes), f).toBe(true);
}

describe('worker threads', () => {
  // Every variant of one project, and the v10 (AES-CTR) ones of the other.
  it.each([
    ...['uncompressed', 'zlib', 'oodle', 'oodlepartitioned', 'oodleencrypted', 'patch'].map((v) => ['ue5.8-cue4parse', v]),
    ['ue6.0-cue4parse', 'oodleencrypted'],
    ['ue6.0-cue4parse', 'patch'],
  ])('%s/%s/ unpacks to the same tree, manifest included, as on the main thread', async (project, variant) => {
    const main = out();
    const workers = out();
    const a = await unpack([corpusPath(`${project}/${variant}`)], main, { keys: keys(), threads: 0 });
    const b = await unpack([corpusPath(`${project}/${variant}`)], workers, { keys: keys(), threads: 2 });
    expect(b.failures).toEqual([]);
    expect([a.threads, b.threads]).toEqual([0, 2]);
    expect(a.chunksWritten).toBeGreaterThan(variant === 'patch' ? 3 : 100);
    expect({ chunks: b.chunksWritten, bytes: b.bytesWritten, containers: b.containers }).toEqual({ chunks: a.chunksWritten, bytes: a.bytesWritten, containers: a.containers });
    expectSameTree(main, workers);
  });
});

describe('worker threads at the end of a run', () => {
  // The run lets its workers end by themselves rather than waiting for them (LoopWorkers.release): they must end.
  it.runIf(process.platform === 'linux')('end by themselves once unpack returns: the process has no more threads than before', async () => {
    const threads = () => readdirSync('/proc/self/task').length;
    const before = threads();
    const r = await unpack([corpusPath('ue5.8-cue4parse/zlib')], out(), { threads: 2 });
    expect(r.threads).toBe(2);
    const until = Date.now() + 5000;
    while (threads() > before && Date.now() < until) await new Promise((t) => setTimeout(t, 20));
    expect(threads()).toBeLessThanOrEqual(before);
  });
});

describe('codecs on worker threads', () => {
  const input = corpusPath('ue5.8-cue4parse/zlib');

  it('a codec that a worker cannot rebuild (no recipe) keeps the work on the calling thread', async () => {
    let calls = 0;
    const counting: Codec = { name: 'Zlib', decompress: (s, size) => (calls++, zlibNode.decompress(s, size)) };
    const ref = out();
    await unpack([input], ref, { threads: 0 });
    const dir = out();
    const r = await unpack([input], dir, { threads: 2, codecs: defaultCodecs().register(counting) });
    expect(r.failures).toEqual([]);
    expect(r.threads).toBe(0);
    expect(calls).toBeGreaterThan(0);
    expectSameTree(ref, dir);
  });

  // The calling thread takes chunks too; its codec sleeps a little per block here so the workers surely get some.
  const slowly = (decode: Codec['decompress']): Codec['decompress'] => (s, size) => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    return decode(s, size);
  };

  it('a codec with a recipe is rebuilt in each worker, which then decodes with it', async () => {
    // The recipe's codec marks its output, so the tree shows which instance decoded the blocks.
    const mod = join(tmp, 'marking-codec.mjs');
    // The codec module alone, not the whole library: a worker that loads slowly leaves the calling thread every chunk.
    const dist = pathToFileURL(resolve(__dirname, '../../dist/codecs/zlib.js')).href;
    writeFileSync(mod, `import { zlibNode } from ${JSON.stringify(dist)};
      export async function make(mark) {
        return { name: 'Zlib', decompress: (s, size) => { const o = zlibNode.decompress(s, size); o[0] = mark; return o; } };
      }`);
    const codec: Codec = { name: 'Zlib', decompress: slowly(zlibNode.decompress), recipe: { module: pathToFileURL(mod).href, factory: 'make', args: [0xab] } };
    const ref = out();
    await unpack([input], ref, { threads: 0 });
    const dir = out();
    const r = await unpack([input], dir, { threads: 2, codecs: defaultCodecs().register(codec) });
    expect(r.failures).toEqual([]);
    expect(r.threads).toBe(2);
    const zlibChunks = Array.from(r.planned).filter((p) => p.size > 0);
    // Every chunk that has a Zlib block starts with one (its first block compresses): those the workers decoded
    // carry the mark, and apart from the marks every file equals the one unpacked on the calling thread.
    const marked = zlibChunks.filter((p) => readFileSync(join(dir, p.path))[0] === 0xab);
    expect(marked.length).toBeGreaterThan(0);
    for (const p of zlibChunks) {
      const a = readFileSync(join(ref, p.path));
      const b = readFileSync(join(dir, p.path));
      // The mark lands on the first byte of each block the rebuilt codec decoded.
      for (let at = 0; at < b.length; at += 65536) b[at] = a[at]!;
      expect(b.equals(a), p.path).toBe(true);
    }
  });

  it('a worker that breaks (a bug, not bad data) stops the run with its error and leaves no temporary file', async () => {
    const mod = join(tmp, 'broken-codec.mjs');
    writeFileSync(mod, `export async function make() { return { name: 'Zlib', decompress() { throw new TypeError('codec bug'); } }; }`);
    const codec: Codec = { name: 'Zlib', decompress: slowly(zlibNode.decompress), recipe: { module: pathToFileURL(mod).href, factory: 'make', args: [] } };
    const dir = out();
    await expect(unpack([input], dir, { threads: 2, codecs: defaultCodecs().register(codec) })).rejects.toThrow('codec bug');
    // The run's new output folder was staged: an error leaves neither it nor its staged copy.
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(dirname(dir)).filter((f) => f.includes('iostore-tmp'))).toEqual([]);
  });
});
