import type { CodecRegistry } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import type { PakArchive } from '../pak/archive.js';
import { openPakFile } from '../pak/pak-file.js';
import type { PakEntry } from '../pak/read.js';
import { pakMountRelative, unsafePakPathReason } from '../pak/safe-path.js';
import { toHex } from '../util/bytes.js';
import type { KeyRing } from '../mount/keys.js';
import type { ManifestPak, ManifestPakFile } from '../layout/manifest.js';
import type { PakMountEntry } from '../mount/mount.js';
import { isAborting, safeOutputPath, writeFileAtomic } from '../layout/output.js';
import { eventLoopTurns } from '../util/turns.js';
import { packageKey } from '../layout/package-files.js';
import type { OutputNames } from '../layout/names.js';
import { KeyTable } from '../util/key-table.js';
import { placementFacts } from '../pak/archive.js';
import { PakStoredOut } from './pak-out-pool.js';

/** What unpacking the paks of a run shares with the containers' part of it. */
export interface PakUnpackRun {
  outdir: string;
  codecs: CodecRegistry;
  keys?: KeyRing;
  match?: (path: string) => boolean;
  dryRun?: boolean;
  verify?: boolean;
  /** Output paths (lower case) the containers already write, and by which container: those keep their file. */
  claimed: PakClaims;
  /**
   * The container that supplies the package `key` (see packageKey) in zen form, when the mount-order winner of the
   * package as a whole is one; else undefined. A package never mixes the zen and legacy forms.
   */
  packageWinner?: (key: string, pak: string, path: string) => string | undefined;
  /** The output folder is staged (see StagedFolder): files are written under their final names, no temporary ones. */
  finalNames?: boolean;
  /** The run's output names: a pak file that would replace another file of the run is written under a free name. */
  names?: OutputNames;
  /** Worker threads writing stored files beside this one (see PakStoredOut.create; 0: none). */
  threads?: number;
}

/** Which container writes an output path (lower case), if one does. */
export interface PakClaims {
  get(lowerPath: string): string | undefined;
}

export interface PakPlanned {
  container: string;
  path: string;
  size: number;
  archive: PakArchive;
  entry: PakEntry;
  /** The entry's place in its pak's index (`archive.pak.entries`). */
  index: number;
}

export interface PakUnpackOutcome {
  manifests: ManifestPak[];
  planned: PakPlanned[];
  summary: Array<{ name: string; priority: number; chunks: number; written: number; overridden: number; overriddenBy: string[] }>;
  failures: Array<{ container: string; index: number; path?: string; code: string; message: string }>;
  warnings: string[];
  archives: PakArchive[];
  /** The first pak that could not be opened at all, as thrown (with its offset). */
  openError?: IoStoreError;
}

/** The key for a pak: by its key GUID from the ring (the default key when the ring has none for it). */
export function pakKeyLookup(keys: KeyRing | undefined): ((guid: string) => Uint8Array | undefined) | undefined {
  return keys ? (guid) => keys.get(guid) : undefined;
}

/** A pak opened for an unpack, with the folder its mount point gives (relative to the output folder). */
export interface OpenedPak {
  /** The mount entry, named with its extension (a container and its companion pak share the base name). */
  mount: PakMountEntry;
  archive: PakArchive;
  prefix: string;
}

export interface OpenedPaks {
  paks: OpenedPak[];
  /** Every archive opened (to close), including those whose mount point was refused. */
  archives: PakArchive[];
  failures: PakUnpackOutcome['failures'];
  /** The first pak that could not be opened at all, as thrown (with its offset). */
  openError?: IoStoreError;
}

/** Opens the paks (in mount order) and reads their indexes; one that cannot be opened is a failure. */
export async function openPaks(entries: readonly PakMountEntry[], keys: KeyRing | undefined): Promise<OpenedPaks> {
  const out: OpenedPaks = { paks: [], archives: [], failures: [] };
  for (const mount of entries) {
    // Rows name the file with its extension: a container and its companion pak share the base name.
    const m = { ...mount, name: `${mount.name}.pak` };
    let archive: PakArchive;
    try {
      archive = await openPakFile(m.pak, { ...(keys ? { keyFor: pakKeyLookup(keys)! } : {}) });
    } catch (e) {
      if (!(e instanceof IoStoreError)) throw e;
      out.openError ??= e;
      out.failures.push({ container: m.name, index: -1, code: e.code, message: e.message });
      continue;
    }
    out.archives.push(archive);
    try {
      out.paks.push({ mount: m, archive, prefix: pakMountRelative(archive.pak.mountPoint, m.pak) });
    } catch (e) {
      if (!(e instanceof IoStoreError)) throw e;
      out.failures.push({ container: m.name, index: -1, code: e.code, message: e.message });
    }
  }
  return out;
}

/** A planned file with its manifest row; `dropped` once a later pak overrides or deletes it. */
interface PakCandidate {
  planned: PakPlanned;
  file: ManifestPakFile;
  dropped?: boolean;
  /** The candidate planned before this one at the same output path (lower case), -1 for none. */
  before: number;
}

/** What planPaks keeps while it walks the paks in mount order. */
interface PakPlanState {
  out: PakUnpackOutcome;
  run: PakUnpackRun;
  /**
   * By lower-case path (the engine finds pak files case-insensitively): the last candidate planned there (in `all`),
   * whose `before` chain holds the others; those not dropped are the files a later pak overrides or deletes. One pak
   * listing a path twice overrides nothing: both are kept (and named apart by `run.names`). A table of hashes and
   * references: a Map of lower-case paths to arrays took ~0.1 KB a file.
   */
  byPath: KeyTable;
  all: PakCandidate[];
  /** Each pak's summary row by its name (a row per pak: no search per file). */
  summaries: Map<string, PakSummary>;
}

type PakSummary = PakUnpackOutcome['summary'][number];

/**
 * Decides which entry of the opened paks writes each output path: a higher-priority pak's file (a patch) replaces a
 * lower one's, a patch's delete record removes it, and a path a container already writes stays the container's.
 * A file of a package (see packageKey) is left out when `packageWinner` names a container, whose zen form wins.
 * Entries that cannot be read (unsafe path, data past the end, unnamed method) become failures.
 */
export function planPaks(opened: OpenedPaks, run: PakUnpackRun): PakUnpackOutcome {
  const out: PakUnpackOutcome = { manifests: [], planned: [], summary: [], failures: [...opened.failures], warnings: [], archives: opened.archives, ...(opened.openError ? { openError: opened.openError } : {}) };
  const all: PakCandidate[] = [];
  const state: PakPlanState = { out, run, byPath: new KeyTable((k) => all[k]!.planned.path.toLowerCase()), all, summaries: new Map() };
  for (const pak of opened.paks) {
    const mp = manifestPakOf(pak);
    const summary: PakSummary = { name: pak.mount.name, priority: pak.mount.priority, chunks: 0, written: 0, overridden: 0, overriddenBy: [] };
    applyDeletes(state, pak);
    pak.archive.pak.entries.forEach((e, index) => planEntry(state, pak, mp, summary, e, index));
    out.manifests.push(mp);
    out.summary.push(summary);
    if (!state.summaries.has(summary.name)) state.summaries.set(summary.name, summary);
  }
  out.planned = state.all.filter((x) => !x.dropped).map((x) => x.planned);
  if (run.names) nameApart(state.all, run.names);
  return out;
}

/** The manifest's record of a pak, its files added as they are planned. */
function manifestPakOf({ mount: m, archive }: OpenedPak): ManifestPak {
  const pak = archive.pak;
  return {
    name: m.name,
    pak: m.pak,
    priority: m.priority,
    version: pak.version,
    versionName: pak.versionName,
    mountPoint: pak.mountPoint,
    encryptedIndex: pak.encryptedIndex,
    encryptionKeyGuid: pak.encryptionKeyGuid.toUpperCase(),
    compressionMethods: pak.compressionMethods,
    compressionSlots: pak.footer.compressionSlots,
    pathHashSeed: pak.pathHashSeed === undefined ? null : pak.pathHashSeed.toString(),
    deleted: pak.deleted,
    files: [],
  };
}

/** A patch's delete records: the files of earlier paks at those paths are dropped. */
function applyDeletes(state: PakPlanState, { mount, archive, prefix }: OpenedPak): void {
  for (const d of archive.pak.deleted) {
    for (const prev of samePath(state, (prefix + d).toLowerCase())) {
      prev.file.overriddenBy = `${mount.name} (deleted)`;
      prev.dropped = true;
    }
  }
}

/** The candidates not dropped at the output path `key` (lower case), the earliest first. */
function samePath({ byPath, all }: PakPlanState, key: string): PakCandidate[] {
  const out: PakCandidate[] = [];
  for (let k = byPath.find(key); k >= 0; k = all[k]!.before) if (!all[k]!.dropped) out.push(all[k]!);
  return out.reverse();
}

function overriddenBy(s: PakSummary, by: string): void {
  s.overridden++;
  if (!s.overriddenBy.includes(by)) s.overriddenBy.push(by);
}

/** One entry: a failure, left to a container, or planned (overriding earlier paks' files at its path). */
function planEntry(state: PakPlanState, { mount: m, archive, prefix }: OpenedPak, mp: ManifestPak, summary: PakSummary, e: PakEntry, index: number): void {
  const { out, run, byPath } = state;
  const why = unsafePakPathReason(e.path);
  if (why !== undefined) {
    out.failures.push({ container: m.name, index, path: e.path, code: 'UNSAFE_PATH', message: `${m.pak} at offset 0x${e.offset.toString(16)}: pak path ${JSON.stringify(e.path)} ${why}; not written` });
    return;
  }
  const path = prefix + e.path;
  if (run.match && !run.match(path)) return;
  summary.chunks++;
  const file: ManifestPakFile = {
    path,
    pakPath: e.path,
    size: e.uncompressedSize,
    storedSize: e.size,
    compression: e.compressionMethod,
    encrypted: e.encrypted,
    blockSize: e.compressionMethodIndex === 0 ? 0 : e.compressionBlockSize,
    hash: e.hash ? toHex(e.hash) : '',
  };
  mp.files.push(file);
  if (e.problem) {
    out.failures.push({ container: m.name, index, path: e.path, code: e.problem.code, message: `${m.pak} at offset 0x${e.problem.offset.toString(16)}: ${e.problem.message}` });
    return;
  }
  // A package never mixes forms: its legacy files are left out when a container (zen) wins it.
  const pkg = packageKey(path);
  const winner = pkg === undefined ? undefined : run.packageWinner?.(pkg, m.name, path);
  if (winner !== undefined) {
    file.overriddenBy = winner;
    overriddenBy(summary, winner);
    return;
  }
  const key = path.toLowerCase();
  const owner = run.claimed.get(key);
  if (owner !== undefined) {
    file.overriddenBy = owner;
    overriddenBy(summary, owner);
    out.warnings.push(`${path}: kept ${owner}'s file, not ${m.name}'s`);
    return;
  }
  const ref = state.all.length;
  const before = byPath.addIfAbsent(key, ref);
  const item: PakCandidate = { planned: { container: m.name, path, size: e.uncompressedSize, archive, entry: e, index }, file, before };
  if (before >= 0) {
    for (const prev of samePath(state, key)) {
      if (prev.planned.archive === archive) continue;
      prev.file.overriddenBy = m.name;
      prev.dropped = true;
      const s = state.summaries.get(prev.planned.container);
      if (s) overriddenBy(s, m.name);
    }
    byPath.set(key, ref);
  }
  state.all.push(item);
}

/**
 * Files that would replace another file of the run are written under a free name, which the manifest records
 * (`path`; `pakPath` keeps the name in the pak).
 */
function nameApart(all: readonly PakCandidate[], names: OutputNames): void {
  for (const x of all) {
    if (x.dropped) continue;
    const written = names.claim(x.planned.path);
    x.planned.path = written;
    x.file.path = written;
  }
}

/**
 * Writes the planned pak files (atomically, each checked against its SHA-1 with `verify`); failures are collected.
 * In the order of their bytes in each pak: each pak is read a window at a time (a small file's header and data come
 * from the window, not from two reads of their own), and the files are written with blocking calls, giving the event
 * loop a turn now and then (Ctrl-C, the progress bar); through the libuv pool, two reads and four file calls per file
 * made a 50,000-file pak take ~20 s on the development machine. Files stored as they are, unencrypted, under their
 * final names and unverified are written a segment at a time by this thread and a worker (PakStoredOut); the others
 * one at a time on this thread (a pool of workers taking one file each had measured no faster, at twice the CPU).
 */
export async function writePakFiles(plan: PakUnpackOutcome, run: PakUnpackRun, onDone: (p: PakPlanned, bytes: number, ok: boolean) => void): Promise<void> {
  const rank = new Map(plan.archives.map((a, k) => [a, k]));
  const order = plan.planned.slice().sort((a, b) => (a.archive === b.archive ? a.entry.offset - b.entry.offset : rank.get(a.archive)! - rank.get(b.archive)!));
  const views = new Map(plan.archives.map((a) => [a, a.withReadAhead()]));
  const summaries = summaryByName(plan);
  // Failures by their place in `order`: segments finish out of order, and the list keeps the order of the pak.
  const failed: Array<{ at: number; f: PakUnpackOutcome['failures'][number] }> = [];
  const fail = (at: number, p: PakPlanned, code: string, message: string) => failed.push({ at, f: { container: p.container, index: p.index, path: p.path, code, message } });
  const out = storedOut(order, run, (at, n, failure) => {
    const p = order[at]!;
    if (failure) fail(at, p, failure.code, failure.message);
    else summaries.get(p.container)!.written++;
    onDone(p, failure ? 0 : n, !failure);
  });
  const facts = new Map(plan.archives.map((a) => [a, placementFacts(a.pak)]));
  const turn = eventLoopTurns();
  try {
    for (let at = 0; at < order.length; at++) {
      if (isAborting()) break;
      const p = order[at]!;
      if (out && writtenApart(p)) {
        // A segment's own failure (the pak unreadable) is the run's, not this file's: outside the file's try.
        const target = checkedTarget(run, p, (code, message) => fail(at, p, code, message));
        if (target === undefined) onDone(p, 0, false);
        else {
          const waiting = out.add(p.archive.source, facts.get(p.archive)!, { offset: p.entry.offset, size: p.entry.size, path: p.entry.path, target }, at);
          if (waiting) await waiting;
        }
        await turn();
        continue;
      }
      const n = await writeHere(p, views.get(p.archive)!, run, (code, message) => fail(at, p, code, message));
      if (n !== undefined) summaries.get(p.container)!.written++;
      onDone(p, n ?? 0, n !== undefined);
      await turn();
    }
    await out?.finish();
  } catch (e) {
    // An interrupt stops the workers (their unfinished segments reject): the run ends as interrupted.
    throw isAborting() ? new IoStoreError('IO', 'interrupted') : e;
  } finally {
    await out?.close();
    failed.sort((a, b) => a.at - b.at);
    plan.failures.push(...failed.map((x) => x.f));
  }
}

/** Writes one planned file on this thread (atomically); its size, or undefined with its failure given to `fail`. */
async function writeHere(p: PakPlanned, view: PakArchive, run: PakUnpackRun, fail: (code: string, message: string) => void): Promise<number | undefined> {
  try {
    const target = safeOutputPath(run.outdir, p.path);
    const pieces = view.read(p.entry, run.codecs, { verify: !!run.verify });
    return await writeFileAtomic(target, pieces, undefined, { sync: true, ...(run.finalNames ? { tempPath: target } : {}) });
  } catch (e) {
    if (!(e instanceof IoStoreError)) throw e;
    fail(e.code, e.message);
    return undefined;
  }
}

/** The checked output file of `p`, or undefined with its failure given to `fail` (an unsafe path). */
function checkedTarget(run: PakUnpackRun, p: PakPlanned, fail: (code: string, message: string) => void): string | undefined {
  try {
    return safeOutputPath(run.outdir, p.path);
  } catch (e) {
    if (!(e instanceof IoStoreError)) throw e;
    fail(e.code, e.message);
    return undefined;
  }
}

/** Whether a planned file is one PakStoredOut writes: stored as it is, unencrypted, with nothing wrong in its entry. */
function writtenApart(p: PakPlanned): boolean {
  const e = p.entry;
  return e.compressionMethodIndex === 0 && !e.encrypted && !e.problem && e.size === e.uncompressedSize;
}

/**
 * The writer of stored files beside this thread, when the run writes final names unverified and most of its files
 * are stored: a compressed pak's few files that did not shrink lie apart, and segments of them read the compressed
 * bytes between them for nothing (the bench's Zlib pak, 5,332 of 50,000 files: +0.2 s of CPU, +12 MB).
 */
function storedOut(order: readonly PakPlanned[], run: PakUnpackRun, done: (at: number, n: number, failure?: { code: string; message: string }) => void): PakStoredOut | undefined {
  if (!run.finalNames || run.verify || run.threads === 0) return undefined;
  let files = 0;
  for (const p of order) if (writtenApart(p)) files++;
  if (run.threads === undefined && 2 * files < order.length) return undefined;
  return PakStoredOut.create(files, run.threads, done);
}

/** Each pak's summary row by its name (the first, as a search of the list would find it). */
function summaryByName(plan: PakUnpackOutcome): Map<string, PakSummary> {
  const m = new Map<string, PakSummary>();
  for (const s of plan.summary) if (!m.has(s.name)) m.set(s.name, s);
  return m;
}
