import { existsSync, readdirSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vitest/config';

const root = __dirname;
/** Where the tests read the engine-made corpus (test/corpus.ts): beside the project, never copied into it. */
const corpus = resolve(root, '../shared/corpus');

/**
 * Test files that read the corpus: those reaching test/corpus.ts or scripts/synth.mjs (which cuts its blocks from
 * corpus containers) through their relative imports.
 */
function corpusTests(): string[] {
  const reaches = new Map<string, boolean>();
  const targets = [join(root, 'test', 'corpus.ts'), join(root, 'scripts', 'synth.mjs')];
  const visit = (file: string): boolean => {
    if (targets.includes(file)) return true;
    const known = reaches.get(file);
    if (known !== undefined) return known;
    reaches.set(file, false);
    let found = false;
    if (existsSync(file)) {
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = resolve(dirname(file), m[1]!).replace(/\.js$/, '.ts');
        if (visit(target) || visit(target.replace(/\.ts$/, '.mjs'))) found = true;
      }
    }
    reaches.set(file, found);
    return found;
  };
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.test.ts') && visit(p)) out.push(relative(root, p));
    }
  };
  walk(join(root, 'test'));
  return out;
}

// A clone without the corpus beside it runs the tests that need none, and says which it left out.
const withoutCorpus = existsSync(corpus) ? [] : corpusTests();
if (withoutCorpus.length > 0) console.warn(`no corpus at ${corpus}: ${withoutCorpus.length} test files that read it are left out`);

/**
 * Where the tests' temporary files go: /dev/shm (memory) where Linux has it with room to spare, unless the caller set
 * TMPDIR. The suite creates and removes tens of thousands of files: on the disk's ext4 that was ~3x the kernel CPU
 * time (pack, chunk-pool, file-writer, output, to-legacy-folder: 9-10.5 s of system time, 3.5 s in /dev/shm).
 */
function testTmpdir(): string | undefined {
  if (process.env.TMPDIR) return undefined;
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.bavail * fs.bsize >= 4 * 2 ** 30) return '/dev/shm';
  } catch {
    // no /dev/shm: the system's temporary folder
  }
  return undefined;
}
const tmp = testTmpdir();

/**
 * The library's modules as `npm run build` compiled them (dist/, loaded by Node itself) rather than src/'s TypeScript
 * through vite's transforms, when the build is current: every TypeScript file of src/ (the page's src/web aside, which
 * tsc does not build) has its dist/ module, written after it. The transforms and their module runner had cost a fresh
 * clone ~13 CPU s (transform) and more in imports, in each worker process. `npm test` builds first; after an edit of
 * src/ without a build (`npx vitest` alone), or with IOSTORE_TEST_SRC=1, the tests load src/ as before: never a stale
 * dist/. The same code either way: dist/ is tsc's output of these files, the one the CLI and the package run.
 */
function currentBuild(): Set<string> | undefined {
  if (process.env.IOSTORE_TEST_SRC === '1') return undefined;
  const src = join(root, 'src');
  const built = new Set<string>();
  const walk = (dir: string): boolean => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (p === join(src, 'web')) continue;
        if (!walk(p)) return false;
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) {
        const out = join(root, 'dist', relative(src, p)).replace(/\.ts$/, '.js');
        const js = statSync(out, { throwIfNoEntry: false });
        if (!js || js.mtimeMs < statSync(p).mtimeMs) return false;
        built.add(p.replace(/\.ts$/, '.js'));
      }
    }
    return true;
  };
  return walk(src) ? built : undefined;
}

/**
 * Whether the worker bundles (scripts/build-cli.mjs: dist/<stage>/<name>-worker.cjs) are as new as dist/'s modules.
 * The library started from src/ starts its worker threads from them (src/util/worker-pool.ts runnableUrl: a third of
 * the CPU time of one started from dist/'s modules, and the suite starts hundreds); started from dist/, it does when
 * the process says it runs bundled (globalThis.__iostoreBundled), which the tests' processes do (execArgv below) when
 * they are current.
 */
function bundlesCurrent(): boolean {
  const dist = join(root, 'dist');
  let newest = 0;
  const bundles: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'web') walk(p);
      } else if (e.name.endsWith('-worker.cjs')) bundles.push(p);
      else if (e.name.endsWith('.js')) newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  walk(dist);
  return bundles.length > 0 && bundles.every((b) => statSync(b).mtimeMs >= newest);
}

const built = currentBuild();
/** Whether the tests' processes run as bundled (execArgv): they load dist/ and the worker bundles are current. */
const bundledWorkers = !!built && bundlesCurrent();

function distForSrc(): Plugin[] {
  if (!built) {
    console.warn('vitest: dist/ is older than src/ (or IOSTORE_TEST_SRC=1): the tests load src/ through transforms');
    return [];
  }
  const src = join(root, 'src') + '/';
  return [
    {
      name: 'iostore-dist-for-src',
      enforce: 'pre',
      resolveId(source, importer) {
        if (!importer || !source.startsWith('.') || !source.endsWith('.js')) return null;
        const target = resolve(dirname(importer), source);
        if (!target.startsWith(src) || !built.has(target)) return null;
        return join(root, 'dist', relative(src, target));
      },
    },
  ];
}

/**
 * Test files that need a process of their own: they measure the whole process (its peak RSS), which the test files
 * run before them in a shared one would raise.
 */
const ownProcess = ['test/fuzz/cli-fuzz.test.ts', 'test/fuzz/legacy-fuzz.test.ts'];
const excluded = ['**/node_modules/**', ...withoutCorpus];

export default defineConfig({
  plugins: distForSrc(),
  test: {
    testTimeout: 60_000,
    // Child processes the tests start inherit it.
    env: tmp ? { TMPDIR: tmp } : {},
    // The tests' processes say they run bundled (see bundlesCurrent), before anything loads: a setup file would run
    // again before each test file.
    execArgv: bundledWorkers ? ['--import', 'data:text/javascript,globalThis.__iostoreBundled=true'] : [],
    pool: 'forks',
    // The TypeScript of src/ and test/ as transformed by the last run, kept in node_modules/.experimental-vitest-cache
    // (keyed by each file's content and the config; Vitest 5 has it on by default): test/convert + test/zen took 33-35
    // CPU s, 28-30 s with it (load 13).
    experimental: { fsModuleCache: true },
    // Vitest's default (one fewer than the cores) ran the suite in a single process on a 2-core machine: 127 s.
    // Much of the suite waits on child processes, Chromium and the file system, so two processes there took 65 s.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The build output and the scripts (which import it) load as Node loads them: through vitest's transforms,
    // scripts/synth.mjs and the dist/ it imports took 4.7 s of CPU, 10 s at load 10, in each worker.
    server: { deps: { external: [/\/dist\//, /\/scripts\/[^/]+\.mjs$/] } },
    projects: [
      {
        extends: true,
        // The test files share their worker processes: each new process imported the library again (~1.5 s of CPU
        // per file, 40% of the suite's CPU time). No test file mocks modules or changes globals.
        test: { name: 'shared', isolate: false, include: ['test/**/*.test.ts'], exclude: [...excluded, ...ownProcess] },
      },
      { extends: true, test: { name: 'own-process', include: ownProcess, exclude: excluded } },
    ],
  },
});
