// Side by side with retoc and the machine's floors (issue 14): whole-process wall time and peak RSS of the `iostore`
// CLI against retoc and against `cp -r` / `node -e 0`, on a container built the same way on every run.
// Kept apart from bench.mjs's other sections so each part can grow on its own.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, statSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const FILES = 3000;
const MEDIAN_BYTES = 36 * 1024;
const MAX_BYTES = 8 * 1024 * 1024;
const SEED = 14;

/** A small deterministic PRNG (mulberry32): the same container on every machine and run. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every .ucas of the corpus, concatenated: the pool the file contents are cut from. */
export function corpusPool(corpus) {
  const parts = [];
  for (const d of readdirSync(corpus).sort()) {
    const dir = join(corpus, d);
    if (!statSync(dir).isDirectory()) continue;
    for (const f of readdirSync(dir).sort()) if (f.endsWith('.ucas')) parts.push(readFileSync(join(dir, f)));
  }
  return Buffer.concat(parts);
}

/**
 * Writes a plain mod folder of FILES .ubulk files, sizes log-normal around MEDIAN_BYTES (capped at MAX_BYTES), each
 * cut from the corpus at a random offset (wrapping around), then packs it twice with our own `pack --version UE5_4`:
 * stored and Zlib. Returns the two .utoc paths and the raw byte count.
 */
export function buildSideBySideContainers(root, corpus, tmp) {
  const pool = corpusPool(corpus);
  const next = rng(SEED);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  const folder = join(tmp, 'side-in');
  let raw = 0;
  for (let i = 0; i < FILES; i++) {
    const size = Math.max(1, Math.min(MAX_BYTES, Math.round(MEDIAN_BYTES * Math.exp(1.3 * gauss()))));
    const data = Buffer.allocUnsafe(size);
    let at = Math.floor(next() * pool.length);
    for (let o = 0; o < size; ) {
      const n = Math.min(size - o, pool.length - at);
      pool.copy(data, o, at, at + n);
      o += n;
      at = 0;
    }
    const dir = join(folder, 'Game', 'Content', `D${String(i % 40).padStart(2, '0')}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `F${String(i).padStart(4, '0')}.ubulk`), data);
    raw += size;
  }
  const out = {};
  for (const method of ['none', 'zlib']) {
    const utoc = join(tmp, `side-${method}`, 'Side-Windows.utoc');
    const r = spawnSync(process.execPath, [join(root, 'bin', 'iostore.js'), 'pack', folder, utoc, '--version', 'UE5_4', '--compression', method, '--quiet'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`pack failed: ${r.stderr}`);
    out[method] = utoc;
  }
  rmSync(folder, { recursive: true, force: true });
  return { ...out, raw };
}

/** Runs argv under /usr/bin/time (peak RSS) when present, in `env` if given; returns { ms, rssMb, ok }. */
export function measure(argv, before, env) {
  before?.();
  const hasTime = existsSync('/usr/bin/time');
  const cmd = hasTime ? '/usr/bin/time' : argv[0];
  const args = hasTime ? ['-f', '%M', ...argv] : argv.slice(1);
  const s = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...(env ? { env } : {}) });
  const ms = Number(process.hrtime.bigint() - s) / 1e6;
  let rssMb = NaN;
  if (hasTime) {
    const lines = r.stderr.trim().split('\n');
    rssMb = Number(lines[lines.length - 1]) / 1024;
  }
  return { ms, rssMb, ok: r.status === 0, stderr: r.stderr };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/**
 * Runs each contender's job in alternation, `runs` times, and returns per-contender medians of wall time and peak
 * RSS. `jobs` is [{ name, argv, before?, after? }]: before/after run outside the timed region (e.g. deleting output).
 */
export function alternate(jobs, runs) {
  const res = jobs.map(() => ({ ms: [], rss: [], failed: '' }));
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < jobs.length; j++) {
      const r = measure(jobs[j].argv, jobs[j].before, jobs[j].env);
      jobs[j].after?.();
      if (!r.ok) res[j].failed ||= r.stderr.trim().split('\n').slice(-3).join(' | ');
      res[j].ms.push(r.ms);
      res[j].rss.push(r.rssMb);
    }
  }
  return res.map((r, j) => ({ name: jobs[j].name, ms: median(r.ms), rssMb: median(r.rss), failed: r.failed, rounds: r.ms }));
}

/**
 * a's time over b's. For two contenders of one `alternate` call, the median of each round's ratio: the two ran back
 * to back, so a slower spell of the machine (other load, a noisy neighbour) falls on both, where the ratio of two
 * medians mixes spells. Else (a figure computed, not run) the ratio of their medians.
 */
export function timeRatio(a, b) {
  if (a.rounds && b.rounds && a.rounds.length === b.rounds.length && a.rounds.length > 0) return median(a.rounds.map((t, i) => t / b.rounds[i]));
  return a.ms / b.ms;
}

/** A fresh folder on a tmpfs (/dev/shm) with room for two unpacked trees beside `tmp`'s, or undefined. */
function memoryFolder() {
  try {
    const st = statfsSync('/dev/shm');
    // TMPFS_MAGIC; room for three trees of the bench container at once (ours, cp's, retoc's), with a margin.
    if (st.type !== 0x01021994 || st.bavail * st.bsize < 2 << 30) return undefined;
    const dir = join('/dev/shm', `iostore-side-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * Node reads the PEM file NODE_EXTRA_CA_CERTS names at every start, before any script runs (a CA bundle of 200 KB:
 * ~80 ms on the machine measured). Every Node process pays it where it is set, `node -e 0` and ours alike, and
 * retoc does not: printed beside the table, so the start-up figures can be read either way.
 */
function extraCaCerts(iostore, c, runs) {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (!file) return;
  const without = { ...process.env };
  delete without.NODE_EXTRA_CA_CERTS;
  const r = alternate([
    { name: 'node -e 0', argv: [process.execPath, '-e', '0'] },
    { name: 'node -e 0, without', argv: [process.execPath, '-e', '0'], env: without },
    { name: 'info, without', argv: [...iostore, 'info', c.zlib], env: without },
    { name: 'list, without', argv: [...iostore, 'list', c.zlib], env: without },
  ], runs);
  const ms = (x) => `${x.ms.toFixed(0)} ms`;
  console.log(`  this environment sets NODE_EXTRA_CA_CERTS (${file}), which every Node process loads at start: node -e 0 takes ${ms(r[0])} with it, ${ms(r[1])} without; without it, info takes ${ms(r[2])} (${timeRatio(r[2], r[1]).toFixed(2)}x node -e 0) and list ${ms(r[3])} (${timeRatio(r[3], r[1]).toFixed(2)}x)`);
}

/**
 * Peak RSS at scale (issue 14: no growth with size): `unpack` and `verify` of a 2 GiB synthetic Zlib container
 * (scripts/synth.mjs: 256 chunks of 128 copies of one corpus block), one run each, in their own processes. The
 * container is written by a child process, since its writer is asynchronous and this script is not.
 */
export function atScale(root, tmp, iostore) {
  if (process.env.IOSTORE_BENCH_SCALE === '0') return [];
  const dir = join(tmp, 'scale');
  mkdirSync(dir, { recursive: true });
  const make = `import { writeSyntheticContainer } from ${JSON.stringify(join(root, 'scripts', 'synth.mjs'))};
    const r = await writeSyntheticContainer(${JSON.stringify(dir)}, 'Scale-Windows', { chunks: 256, blocksPerChunk: 128, method: 'zlib' });
    console.log(JSON.stringify(r.utoc));`;
  const made = spawnSync(process.execPath, ['--input-type=module', '-e', make], { encoding: 'utf8' });
  if (made.status !== 0) {
    console.log(`  (2 GiB synthetic container not built: ${made.stderr.trim().split('\n').pop()})`);
    return [];
  }
  const utoc = JSON.parse(made.stdout);
  const out = join(tmp, 'scale-out');
  const rows = [];
  for (const [job, args] of [['unpack, 2 GiB', ['unpack', utoc, out, '--quiet']], ['verify, 2 GiB', ['verify', utoc, '--quiet']]]) {
    rmSync(out, { recursive: true, force: true });
    const r = measure([...iostore, ...args]);
    rows.push({ job, ours: { name: 'ours', ms: r.ms, rssMb: r.rssMb, failed: r.ok ? '' : r.stderr.trim().split('\n').slice(-3).join(' | ') } });
  }
  rmSync(out, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
  return rows;
}

/**
 * The plan scripts/node-floor.mjs works from, written by a child process (the TOC reader is asynchronous and this
 * script is not): per chunk in .ucas order its path, length, offset in its first block and blocks. Returns the
 * plan's path, or undefined when it could not be made.
 */
export function writeNodeFloorPlan(root, utoc, file) {
  const make = `import { openToc } from ${JSON.stringify(join(root, 'dist', 'toc', 'index.js'))};
    import { writeFileSync } from 'node:fs';
    const toc = await openToc(${JSON.stringify(utoc)});
    const ucas = ${JSON.stringify(utoc.replace(/\.utoc$/, '.ucas'))};
    const chunks = [];
    for (const i of toc.chunksInUcasOrder()) {
      const length = toc.chunkLengths[i];
      if (length === 0) continue;
      const first = toc.chunkFirstBlock(i);
      const blocks = [];
      for (let b = first; b < first + toc.chunkBlockCount(i); b++) blocks.push(toc.blocks.offset(b), toc.blocks.compressedSize(b), toc.blocks.uncompressedSize(b), toc.blocks.method(b));
      chunks.push([toc.chunkPath(i) ?? '_chunks/' + i + '.bin', length, toc.chunkOffsets[i] % toc.blockSize, blocks]);
    }
    writeFileSync(${JSON.stringify(file)}, JSON.stringify({ ucas, blockSize: toc.blockSize, chunks }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', make], { encoding: 'utf8' });
  if (r.status !== 0) {
    console.log(`  (Node floor plan not made: ${r.stderr.trim().split('\n').pop()})`);
    return undefined;
  }
  return file;
}

/** The side-by-side table: each job for us, retoc (when present) and the floor, with ratios. */
export function sideBySide({ root, corpus, tmp, runs = 11, quickRuns = 21, extraJobs = [] }) {
  const retoc = join(root, '..', 'shared', 'tools', 'retoc', 'retoc');
  const haveRetoc = existsSync(retoc);
  const iostore = [process.execPath, join(root, 'bin', 'iostore.js')];
  const t0 = Date.now();
  const c = buildSideBySideContainers(root, corpus, tmp);
  console.log(`\nside by side (issue 14): ${FILES} .ubulk files, ${(c.raw / 1e6).toFixed(0)} MB raw, log-normal sizes around ${MEDIAN_BYTES / 1024} KiB (max ${MAX_BYTES / 1048576} MiB), cut from the corpus, packed by our pack --version UE5_4 (built in ${((Date.now() - t0) / 1000).toFixed(1)} s); medians of ${runs} whole-process runs in alternation (${quickRuns} for jobs under a second: list, info, --version, verify, to-legacy); each ratio the median of the rounds' ratios`);
  if (!haveRetoc) console.log(`  retoc not found at ${retoc}: its column is left out`);
  const out = (tag) => join(tmp, `side-out-${tag}`);
  const clean = (tag) => () => rmSync(out(tag), { recursive: true, force: true });
  const settle = () => spawnSync('sync');
  // The tree cp -r copies: the stored container unpacked once by us.
  spawnSync(iostore[0], [...iostore.slice(1), 'unpack', c.none, out('tree'), '--quiet']);
  const rows = [];
  const row = (job, floorName, ours, theirs, floor, nodeFloor) => rows.push({ job, floorName, ours, theirs, floor, nodeFloor });
  // The least a Node process can do for the same jobs (scripts/node-floor.mjs), run in the same alternation.
  const plans = { [c.none]: writeNodeFloorPlan(root, c.none, join(tmp, 'floor-none.json')), [c.zlib]: writeNodeFloorPlan(root, c.zlib, join(tmp, 'floor-zlib.json')) };
  const floorScript = join(root, 'scripts', 'node-floor.mjs');
  const nodeFloorJob = (utoc, mode, target, before) => (plans[utoc] ? [{ name: 'node floor', argv: [process.execPath, floorScript, plans[utoc], mode, ...(target ? [target] : [])], before }] : []);
  const pick = (r, name) => r.find((x) => x.name === name);
  for (const [label, utoc] of [['unpack, stored', c.none], ['unpack, Zlib', c.zlib]]) {
    const jobs = [
      { name: 'ours', argv: [...iostore, 'unpack', utoc, out('ours'), '--quiet'], before: () => { clean('ours')(); settle(); } },
      { name: 'cp -r', argv: ['cp', '-r', out('tree'), out('cp')], before: () => { clean('cp')(); settle(); } },
      ...nodeFloorJob(utoc, 'unpack', out('floor'), () => { clean('floor')(); settle(); }),
    ];
    if (haveRetoc) jobs.push({ name: 'retoc', argv: [retoc, 'unpack', utoc, out('retoc')], before: () => { clean('retoc')(); settle(); } });
    const r = alternate(jobs, runs);
    clean('ours')(); clean('cp')(); clean('retoc')(); clean('floor')();
    row(label, 'cp -r', r[0], pick(r, 'retoc'), r[1], pick(r, 'node floor'));
  }
  // The same unpacks into memory (tmpfs), where the disk file system's state (on the ext4 measured, creating files
  // after many deletes costs up to 1 ms each, for every tool) is out of the picture: what is left is each tool's own
  // work and the kernel's copying.
  const shm = memoryFolder();
  if (shm) {
    const at = (tag) => join(shm, `side-out-${tag}`);
    const gone = (tag) => () => rmSync(at(tag), { recursive: true, force: true });
    for (const [label, utoc] of [['unpack, stored, tmpfs', c.none], ['unpack, Zlib, tmpfs', c.zlib]]) {
      const jobs = [
        { name: 'ours', argv: [...iostore, 'unpack', utoc, at('ours'), '--quiet'], before: gone('ours') },
        { name: 'cp -r', argv: ['cp', '-r', out('tree'), at('cp')], before: gone('cp') },
        ...nodeFloorJob(utoc, 'unpack', at('floor'), gone('floor')),
      ];
      if (haveRetoc) jobs.push({ name: 'retoc', argv: [retoc, 'unpack', utoc, at('retoc')], before: gone('retoc') });
      const r = alternate(jobs, runs);
      gone('ours')(); gone('cp')(); gone('retoc')(); gone('floor')();
      row(label, 'cp -r', r[0], pick(r, 'retoc'), r[1], pick(r, 'node floor'));
    }
    rmSync(shm, { recursive: true, force: true });
  }
  const nodeFloor = { name: 'node -e 0', argv: [process.execPath, '-e', '0'] };
  // list's Node floor (scripts/node-floor-list.cjs): the .utoc read whole and as many bytes written as the listing
  // has, measured beside `node -e 0` (which reads no file and writes nothing).
  const listFloor = (args) => {
    const r = spawnSync(iostore[0], [...iostore.slice(1), ...args], { maxBuffer: 256 * 1024 * 1024 });
    return r.status === 0 ? [{ name: 'node floor', argv: [process.execPath, join(root, 'scripts', 'node-floor-list.cjs'), c.zlib, String(r.stdout.length)] }] : [];
  };
  const quick = [
    ['verify, Zlib', ['verify', c.zlib], ['verify', c.zlib], null],
    ['verify, stored', ['verify', c.none], ['verify', c.none], null],
    ['list', ['list', c.zlib], ['list', c.zlib], nodeFloor],
    ['list --json', ['list', c.zlib, '--json'], null, nodeFloor],
    ['list --csv', ['list', c.zlib, '--csv'], null, nodeFloor],
    ['info', ['info', c.zlib], ['info', c.zlib], nodeFloor],
    ['info --json', ['info', c.zlib, '--json'], null, nodeFloor],
    ['--version', ['--version'], null, nodeFloor],
    ...extraJobs.map((j) => j(c, out)),
  ];
  // A fifth element, when present, runs before each contender's run, untimed (e.g. removing its output folder).
  for (const [label, ourArgs, theirArgs, floor, before] of quick) {
    const jobs = [{ name: 'ours', argv: [...iostore, ...ourArgs], before }];
    if (floor) jobs.push({ ...floor, before });
    if (label.startsWith('verify')) jobs.push(...nodeFloorJob(label === 'verify, Zlib' ? c.zlib : c.none, 'verify'));
    if (label.startsWith('list')) jobs.push(...listFloor(ourArgs));
    if (haveRetoc && theirArgs) jobs.push({ name: 'retoc', argv: [retoc, ...theirArgs], before });
    // Start-up-sized jobs move most with the machine's other load: more runs for a steadier median.
    const r = alternate(jobs, quickRuns);
    row(label, floor?.name, r[0], r.find((x, i) => i > 0 && x.name === 'retoc'), floor ? r[1] : undefined, pick(r, 'node floor'));
  }
  clean('tree')();
  extraCaCerts(iostore, c, quickRuns);
  rows.push(...atScale(root, tmp, iostore));
  const s = (x) => (x ? `${(x.ms / 1000).toFixed(3)} s` : '-');
  const mb = (x) => (x && Number.isFinite(x.rssMb) ? `${x.rssMb.toFixed(0)} MB` : '-');
  console.log(`  ${'job'.padEnd(22)} ${'ours'.padStart(9)} ${'retoc'.padStart(9)} ${'ours/retoc'.padStart(10)}   ${'floor'.padEnd(10)} ${'time'.padStart(9)} ${'ours/floor'.padStart(10)}   peak RSS ours / retoc`);
  for (const r of rows) {
    const ratio = (a, b) => (a && b ? `${timeRatio(a, b).toFixed(2)}x` : '-');
    const fail = [r.ours.failed && `ours failed: ${r.ours.failed}`, r.theirs?.failed && `retoc failed: ${r.theirs.failed}`].filter(Boolean).join('; ');
    console.log(`  ${r.job.padEnd(22)} ${s(r.ours).padStart(9)} ${s(r.theirs).padStart(9)} ${ratio(r.ours, r.theirs).padStart(10)}   ${(r.floorName ?? '-').padEnd(10)} ${s(r.floor).padStart(9)} ${ratio(r.ours, r.floor).padStart(10)}   ${mb(r.ours)} / ${mb(r.theirs)}${fail ? `  (${fail})` : ''}`);
  }
  const floors = rows.filter((r) => r.nodeFloor);
  if (floors.length > 0) {
    console.log(`  Node's floor (scripts/node-floor.mjs: a ready plan, only the reads, inflates, hashes and writes, on the main thread and a worker started first thing; for list, scripts/node-floor-list.cjs: the .utoc read and the listing's size in bytes written): where node floor / retoc is above 1.00x, no Node program can match retoc on this machine`);
    console.log(`  ${'job'.padEnd(22)} ${'node floor'.padStart(10)} ${'floor/retoc'.padStart(11)} ${'ours/floor'.padStart(10)}   peak RSS, floor`);
    for (const r of floors) {
      const ratio = (a, b) => (a && b ? `${timeRatio(a, b).toFixed(2)}x` : '-');
      const fail = r.nodeFloor.failed ? `  (node floor failed: ${r.nodeFloor.failed})` : '';
      console.log(`  ${r.job.padEnd(22)} ${s(r.nodeFloor).padStart(10)} ${ratio(r.nodeFloor, r.theirs).padStart(11)} ${ratio(r.ours, r.nodeFloor).padStart(10)}   ${mb(r.nodeFloor)}${fail}`);
    }
  }
  return rows;
}
