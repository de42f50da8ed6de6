import { existsSync, statSync } from 'node:fs';
import { ContainerReader } from '../cas/container-reader.js';
import { defaultCodecs, type CodecRegistry } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import { chunkTypeFromName } from '../toc/chunk-id.js';
import type { EngineVersion } from '../toc/engine.js';
import type { IoStoreToc } from '../toc/toc.js';
import { KeyRing } from '../mount/keys.js';
import { readManifestFile, keptManifestEntries } from '../layout/manifest-read.js';
import { MANIFEST_NAME, MANIFEST_VERSION, manifestChunk, manifestChunkJson, manifestContainer, type Manifest, type ManifestChunk, type ManifestContainer } from '../layout/manifest.js';
import { checkDistinctNames, discoverMounts, type MountEntry, type PakMountEntry } from '../mount/mount.js';
import type { OpenedPaks, PakClaims, PakUnpackOutcome } from './pak-unpack.js';
import { packageKey } from '../layout/package-files.js';
import { ManifestChunkWriter } from '../layout/manifest-bytes.js';
import { safeOutputPath, writeFileAtomic } from '../layout/output.js';
import { StagedFolder } from '../layout/staged-folder.js';
import { OutputNames, ignoresCase, renamedWarning } from '../layout/names.js';
import { outputPathsDistinct } from '../layout/distinct-paths.js';
import { leftoversWarning } from '../layout/leftovers.js';
import { metaHashAlgorithm } from '../chunks/write-chunk.js';
import { LoopTaskBuilder } from '../chunks/chunk-loop.js';
import { defaultWriteThreads, runChunkTasks, startLoopWorkers } from '../chunks/loop-pool.js';
import { JsonLazyArray, jsonPieces, utf8Batches } from '../util/json-pieces.js';
import { openContainer } from '../mount/open.js';
import { chunkOutputPath } from '../layout/unnamed.js';
import { KeyTable } from '../util/key-table.js';
import { IntList } from '../util/int-list.js';
import { ChunkIdOwners, ChunkPlan, PlannedChunks, type PlannedChunk } from './chunk-plan.js';
import { plural } from '../util/plural.js';

export interface UnpackOptions {
  keys?: KeyRing;
  engine?: EngineVersion;
  codecs?: CodecRegistry;
  /** Glob on the output path (named chunks: their directory-index path; others: `_chunks/<Type>/<id>.bin`). */
  filter?: string;
  /** Only chunks of this type name. */
  type?: string;
  /** Plan only: nothing is written. */
  dryRun?: boolean;
  /** Pak files written concurrently on this thread when no worker threads are used (default 8). Container chunks are
   * written one after another with blocking calls (see `threads`). */
  jobs?: number;
  onProgress?: (p: UnpackProgress) => void;
  /**
   * Worker threads beside this one, each reading, decoding and writing whole chunks with blocking calls, each
   * taking its own stretch of the plan first (0: this thread alone). Default, from the containers before the plan:
   * one per other core (at most 7) when 16 MiB or more of blocks need decoding or decrypting, else one for 1,024
   * chunks or more (creating files is system time a second thread shares), else none. They start while the plan is
   * made. Codecs without a recipe keep the work on this thread.
   */
  threads?: number;
  /**
   * Hash each chunk as it is written and give it its final name only if the hash matches its chunk meta
   * (BLAKE3-160 for UE5, SHA-1 for UE4); a mismatch is a failure (code HASH_MISMATCH) and leaves no file.
   */
  verify?: boolean;
}

export interface UnpackProgress {
  chunksDone: number;
  chunksTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

export interface UnpackFailure {
  container: string;
  /** Chunk index in its container, or -1 when the whole container failed. */
  index: number;
  id?: string;
  path?: string;
  code: string;
  message: string;
}

export interface UnpackResult {
  outdir: string;
  /**
   * Per container and pak: chunks (files) it lists, how many were written, and how many were left to another
   * source, named in `overriddenBy` (a patch, or the mount-order winner of a package held in both forms).
   */
  containers: Array<{ name: string; priority: number; chunks: number; written: number; overridden: number; overriddenBy: string[] }>;
  chunksWritten: number;
  bytesWritten: number;
  /** What the run writes (or, dry, would write), in plan order: made a chunk at a time when read. */
  planned: PlannedChunks;
  failures: UnpackFailure[];
  warnings: string[];
  manifest: string | null;
  /** Worker threads that did the work (0: the calling thread). */
  threads: number;
}


/**
 * Unpacks containers (files or Paks folders) into `outdir`: every chunk the mount order makes visible, named ones
 * under their directory-index paths, unnamed ones under `_chunks/<Type>/`, and a manifest that `pack` reads. A chunk
 * that fails is reported in `failures` and the rest continue.
 */
export async function unpack(inputs: readonly string[], outdir: string, o: UnpackOptions = {}): Promise<UnpackResult> {
  const { containers, paks } = await discoverMounts(inputs);
  checkDistinctNames(containers, paks);
  if (existsSync(outdir) && !statSync(outdir).isDirectory()) throw new IoStoreError('USAGE', 'the output exists and is not a folder', { file: outdir });
  return unpackWith(containers, outdir, o, paks);
}

async function unpackWith(entries: MountEntry[], outdir: string, o: UnpackOptions, paks: readonly PakMountEntry[] = []): Promise<UnpackResult> {
  const failures: UnpackFailure[] = [];
  const warnings: string[] = [];
  const opened: Array<{ entry: MountEntry; reader: ContainerReader }> = [];
  for (const entry of entries) {
    try {
      opened.push({ entry, reader: await openContainer(entry, o) });
    } catch (e) {
      if (!(e instanceof IoStoreError)) throw e;
      failures.push({ container: entry.name, index: -1, code: e.code, message: e.message });
    }
  }
  if (opened.length === 0 && paks.length === 0) throw new IoStoreError(failures[0]!.code as never, failures[0]!.message.replace(/^.*?: /, ''), { file: entries[0]!.utoc });

  // The manifest of an earlier unpack into the folder: read (and checked) before anything is written.
  const previous = o.dryRun ? undefined : previousManifest(outdir);
  let pakPlan: PakUnpackOutcome | undefined;
  const codecs = o.codecs ?? defaultCodecs();
  // Workers start now, from the containers alone, and open them while this thread plans.
  const loopWorkers =
    !o.dryRun && opened.length > 0
      ? startLoopWorkers(
          opened.map((x) => x.reader),
          codecs,
          o.threads ?? defaultWriteThreads(opened.map((x) => x.reader)),
          { paths: true },
        )
      : undefined;
  // A new output folder is written under a temporary name and renamed into place at the end (see StagedFolder).
  let stage: StagedFolder | undefined;
  try {
    stage = o.dryRun ? undefined : StagedFolder.open(outdir);
    if (stage && stage.leftovers.length > 0) warnings.push(leftoversWarning(stage.leftovers));
    const root = stage?.root ?? outdir;
    /** By container: the chunks written under another name than their own. */
    const renamedAt = opened.map(() => new Map<number, string>());
    // Paks are opened first: a package held by a pak (legacy) and by a container (zen) comes out in one form.
    const withPaks = paks.length > 0 && o.type === undefined;
    const pakOpen: OpenedPaks | undefined = withPaks ? await (await import('./pak-unpack.js')).openPaks(paks, o.keys) : undefined;
    const winners = packageWinners(opened, pakOpen);
    const crossForm = new Set<string>();
    // A package's files of the other form left out: said once per package and source (a zen package over legacy
    // files, or the reverse, is what a modder must know; a patch over its base is the normal case and says nothing).
    const leftOut = (key: string, path: string, loser: string, loserForm: string, winner: number) => {
      const w = winners!.sources[winner]!;
      if (w.form === loserForm || crossForm.has(`${key}\0${loser}`)) return;
      crossForm.add(`${key}\0${loser}`);
      warnings.push(`${path.replace(/(\.m)?\.[^./]+$/, '')}: the package comes from ${w.name} (${w.form}); ${loser}'s ${loserForm} files are left out`);
    };
    // Later (higher-priority) containers override earlier ones chunk id by chunk id, as the engine's lookup does
    // (a container alone owns all its chunks: no table of its ids).
    const tocs = opened.map(({ reader }) => reader.toc);
    const owners = opened.length > 1 ? new ChunkIdOwners(tocs) : undefined;

    // Loaded only when used, as the pak modules are: a run over containers alone does not pay for them.
    const match = o.filter === undefined ? undefined : (await import('picomatch')).default(o.filter, { dot: true, nocase: true });
    // Chunk entries are made as the manifest is written (JsonLazyArray), from the TOC: an object per chunk held
    // from the plan to the end was most of the plan's memory.
    const manifest: LazyManifest = { tool: 'iostore-toolkit', manifestVersion: MANIFEST_VERSION, containers: [] };
    const plan = new ChunkPlan(tocs, opened.map(({ entry }) => entry.name));
    // Plan positions by output path, when two containers could write the same one.
    const byPath = opened.length > 1 ? new KeyTable((k) => plan.path(k)) : undefined;
    const summary: UnpackResult['containers'] = [];
    opened.forEach(({ entry, reader }, c) => {
      const toc = reader.toc;
      const type = o.type === undefined ? undefined : chunkTypeFromName(o.type, toc.generation);
      const missing = toc.compressionMethods.map((m, k) => k > 0 && !codecs.get(m));
      // Each chunk's blocks are looked at only when a codec is missing (the plan is made while the workers wait).
      const anyMissing = missing.some(Boolean);
      const skipped = new Map<string, number>();
      const listed = new IntList();
      const overriddenBy = new Map<number, string>();
      const by = new Set<string>();
      const needPath = match !== undefined || winners !== undefined || byPath !== undefined;
      for (let i = 0; i < toc.chunkCount; i++) {
        if (type !== undefined && toc.chunkType(i) !== type) continue;
        const path = needPath ? chunkOutputPath(toc, i) : '';
        if (match && !match(path)) continue;
        const key = winners ? packageKey(path) : undefined;
        const packageWinner = key === undefined ? undefined : winners!.byPackage.get(key);
        const winner = owners ? owners.owner(c, i) : c;
        if (packageWinner !== undefined && winners!.sources[packageWinner]!.form !== 'zen') {
          const name = winners!.sources[packageWinner]!.name;
          overriddenBy.set(i, name);
          by.add(name);
          leftOut(key!, path, entry.name, 'zen', packageWinner);
        } else if (winner !== c) {
          overriddenBy.set(i, opened[winner]!.entry.name);
          by.add(opened[winner]!.entry.name);
        } else if (anyMissing && needsMissingCodec(toc, i, missing)) {
          const m = firstMissingMethod(toc, i, missing);
          skipped.set(m, (skipped.get(m) ?? 0) + 1);
        } else {
          const clash = byPath ? byPath.find(path) : -1;
          // The same path in one container is no override: both chunks are written (the later under a free name).
          if (clash >= 0 && plan.container(clash) !== c) {
            const was = plan.entry(clash);
            warnings.push(`${path}: written from ${entry.name} (chunk ${toc.chunkIdHex(i)}) over ${was.container}'s chunk ${was.id}`);
            plan.replace(clash, c, i);
          } else {
            const k = plan.add(c, i);
            byPath?.set(path, k);
          }
        }
        listed.push(i);
      }
      const chunks = listed.toInt32Array();
      let writer: ManifestChunkWriter | undefined;
      // The block alignment is worked out as the manifest is written (while the workers write chunks).
      manifest.containers.push(Object.assign(manifestContainer(toc, entry.name, entry.priority, { lazyAlignment: true }), {
        chunks: new JsonLazyArray(
          chunks.length,
          (k) => {
            const i = chunks[k]!;
            const chunk = manifestChunk(toc, i, renamedAt[c]!.get(i) ?? chunkOutputPath(toc, i));
            const by = overriddenBy.get(i);
            if (by !== undefined) chunk.overriddenBy = by;
            return chunk;
          },
          (k, indent) => manifestChunkJson(toc, chunks[k]!, renamedAt[c]!.get(chunks[k]!), overriddenBy.get(chunks[k]!), indent),
          (k, indent, out) => {
            if (writer?.indent !== indent) writer = new ManifestChunkWriter(toc, indent);
            writer.write(out, chunks[k]!, renamedAt[c]!.get(chunks[k]!), overriddenBy.get(chunks[k]!));
          },
        ),
      }));
      for (const [method, n] of skipped) {
        failures.push({ container: entry.name, index: -1, code: 'CODEC', message: `${entry.utoc}: ${plural(n, 'chunk')} need${n === 1 ? 's' : ''} the ${method} codec, which is not available; ${codecHint(method)}` });
      }
      summary.push({ name: entry.name, priority: entry.priority, chunks: chunks.length, written: 0, overridden: overriddenBy.size, overriddenBy: [...by] });
    });

    // Two files of the run that would be one file in the output (the same path, case, a file where a folder is)
    // are both kept, the later under a suffixed name (see OutputNames); a dry run asks no file system. A path is
    // kept as a string only when renamed: the others are made again from the plan.
    const names = new OutputNames(stage ? ignoresCase(root) : process.platform === 'win32' || process.platform === 'darwin', undefined, (k) => plan.path(k));
    // One container whose paths cannot collide (most games' containers) needs no claim per chunk: its workers wait
    // for this plan.
    const distinct = opened.length === 1 && !pakOpen && !names.caseInsensitive && outputPathsDistinct(tocs[0]!, [MANIFEST_NAME]);
    for (let k = 0; k < (distinct ? 0 : plan.length); k++) {
      const path = plan.path(k);
      const written = names.claim(path, k);
      if (written === path) continue;
      plan.rename(k, written);
      renamedAt[plan.container(k)]!.set(plan.index(k), written);
    }

    // Paths (lower case) the containers write, by container name: a pak file of the same path is left out.
    const claimed = (): PakClaims => {
      const lower = new KeyTable((k) => plan.path(k).toLowerCase());
      for (let k = 0; k < plan.length; k++) lower.set(plan.path(k).toLowerCase(), k);
      return { get: (path) => { const k = lower.find(path); return k < 0 ? undefined : opened[plan.container(k)]!.entry.name; } };
    };
    // Paks come after the containers: their files go beside the packages, and a path a container writes stays its.
    // --type selects chunk types, which pak files do not have.
    if (pakOpen) {
      const { planPaks } = await import('./pak-unpack.js');
      const packageWinner = winners
        ? (key: string, pak: string, path: string) => {
            const w = winners.byPackage.get(key);
            if (w === undefined || winners.sources[w]!.form === 'legacy') return undefined;
            leftOut(key, path, pak, 'legacy', w);
            return winners.sources[w]!.name;
          }
        : undefined;
      pakPlan = planPaks(pakOpen, { outdir: root, codecs, ...(o.keys ? { keys: o.keys } : {}), ...(match ? { match } : {}), claimed: claimed(), names, ...(packageWinner ? { packageWinner } : {}) });
      if (opened.length === 0 && pakPlan.archives.length === 0 && pakPlan.openError) throw pakPlan.openError;
      failures.push(...pakPlan.failures);
      pakPlan.failures = failures;
      warnings.push(...pakPlan.warnings);
      summary.push(...pakPlan.summary);
      if (pakPlan.manifests.length > 0) manifest.paks = pakPlan.manifests;
    }
    warnings.push(...names.renamed.map(renamedWarning));
    const pakPlanned: PlannedChunk[] = (pakPlan?.planned ?? []).map((p) => ({ container: p.container, index: p.archive.pak.entries.indexOf(p.entry), id: '', type: 'PakFile', path: p.path, size: p.size }));

    const result: UnpackResult = {
      outdir,
      containers: summary,
      chunksWritten: 0,
      bytesWritten: 0,
      planned: new PlannedChunks(plan, pakPlanned),
      failures,
      warnings,
      manifest: null,
      threads: 0,
    };
    if (o.dryRun) return result;

    let bytesTotal = 0;
    for (let k = 0; k < plan.length; k++) bytesTotal += plan.size(k);
    for (const p of pakPlanned) bytesTotal += p.size;
    const total = { chunksDone: 0, chunksTotal: plan.length + pakPlanned.length, bytesDone: 0, bytesTotal };
    o.onProgress?.({ ...total });
    const readers = opened.map((x) => x.reader);
    // Chunks container by container, in the order their blocks lie in the .ucas files, so the reads go front to back.
    let plannedAt: Int32Array[] | undefined = readers.map((r) => new Int32Array(r.toc.chunkCount).fill(-1));
    for (let k = 0; k < plan.length; k++) plannedAt[plan.container(k)]![plan.index(k)] = k;
    // Each task writes its chunk under its own path (made again from the TOC and checked by the thread that writes
    // it: an unsafe path is that chunk's failure), or a renamed one; taskPlan gives a task's plan position.
    const build = new LoopTaskBuilder(root);
    const taskPlan = new IntList(plan.length);
    const chunkFailures: Array<{ k: number; f: UnpackFailure }> = [];
    const fail = (k: number, code: string, message: string) => {
      const p = plan.entry(k);
      chunkFailures.push({ k, f: { container: p.container, index: p.index, id: p.id, path: p.path, code, message } });
    };
    readers.forEach((r, c) => {
      for (const i of r.toc.chunksInUcasOrder()) {
        const k = plannedAt![c]![i]!;
        if (k < 0) continue;
        try {
          // A chunk under its own path has it made and checked by the thread that writes it (a failure of the
          // check is that chunk's): made here as well, it was ~0.35 s of 150,000 chunks with every worker waiting.
          if (plan.isRenamed(k)) build.add(c, i, safeOutputPath(root, plan.path(k)));
          else build.addOwnPath(c, i);
          taskPlan.push(k);
        } catch (e) {
          if (!(e instanceof IoStoreError)) throw e;
          fail(k, e.code, e.message);
          total.chunksDone++;
          total.bytesDone += plan.size(k);
        }
      }
    });
    // Held to the end of the run otherwise (a context slot of this function): 4 bytes a chunk.
    plannedAt = undefined;
    const base = { chunks: total.chunksDone, bytes: total.bytesDone };
    // Written as it is serialized: a game's manifest (an entry per chunk) is tens of MB of text.
    let manifestError: IoStoreError | undefined;
    const writeManifest = async () => {
      const text = function* () {
        yield* jsonPieces(manifest);
        yield '\n';
      };
      try {
        await writeFileAtomic(safeOutputPath(root, MANIFEST_NAME), utf8Batches(text()), undefined, { sync: true, transient: true });
        result.manifest = safeOutputPath(outdir, MANIFEST_NAME);
      } catch (e) {
        if (!(e instanceof IoStoreError)) throw e;
        manifestError = e;
      }
    };
    // A new manifest in a staged folder does not depend on how the chunks fare (nothing is seen before the folder is
    // put in place): this thread writes it while the workers take the first chunks. Serialized after the loop, its
    // 150,000 entries were ~2 s of one thread with the other idle. Added to an earlier manifest, it waits for the
    // outcome of the run.
    const early = !previous && stage?.staged === true;
    const run = await runChunkTasks(readers, build.finish(), {
      ...(early ? { first: writeManifest } : {}),
      ...(loopWorkers ? { workers: loopWorkers } : { threads: 0 }),
      codecs,
      hash: readers.map((r) => (o.verify ? metaHashAlgorithm(r.toc) : undefined)),
      ...(stage?.staged ? { finalNames: true } : {}),
      onProgress: (chunks, bytes) => {
        total.chunksDone = base.chunks + chunks;
        total.bytesDone = base.bytes + bytes;
        o.onProgress?.({ ...total });
      },
    });
    result.threads = run.threads;
    run.done.forEach((n, c) => {
      result.chunksWritten += n;
      summary[c]!.written += n;
    });
    result.bytesWritten += run.bytes;
    for (const x of run.failures) fail(taskPlan.get(x.task), x.code, x.message);
    // Threads finish out of order: failures are listed in the order of the plan.
    chunkFailures.sort((a, b) => a.k - b.k);
    failures.push(...chunkFailures.map((x) => x.f));
    if (pakPlan) {
      const { writePakFiles } = await import('./pak-unpack.js');
      const pakThreads = await writePakFiles(pakPlan, { outdir: root, codecs, ...(o.verify ? { verify: true } : {}), ...(o.keys ? { keys: o.keys } : {}), ...(o.threads !== undefined ? { threads: o.threads } : {}), jobs: Math.max(1, o.jobs ?? 8), claimed: new Map() }, (p, n, ok) => {
        if (ok) {
          result.chunksWritten++;
          result.bytesWritten += n;
        }
        total.chunksDone++;
        total.bytesDone += p.size;
        o.onProgress?.({ ...total });
      });
      result.threads = Math.max(result.threads, pakThreads);
    }
    if (previous) {
      // One manifest per folder: the earlier unpack's entries stay, their files written over marked as such.
      const failed = new Set(failures.map((f) => f.path?.toLowerCase()));
      const written = new Map<string, string>();
      for (const p of result.planned) if (!failed.has(p.path.toLowerCase())) written.set(p.path.toLowerCase(), p.container);
      const kept = keptManifestEntries(previous, manifest, written);
      manifest.containers = [...kept.containers, ...manifest.containers];
      const allPaks = [...kept.paks, ...(manifest.paks ?? [])];
      if (allPaks.length > 0) manifest.paks = allPaks;
      warnings.push(...kept.warnings);
    }
    if (!early) await writeManifest();
    if (manifestError) {
      // A failure among the others (a full disk fails the files before it too): each is reported, not only this one.
      failures.push({ container: '', index: -1, path: MANIFEST_NAME, code: manifestError.code, message: manifestError.message });
      result.manifest = null;
      // Nothing written at all: no output folder either.
      if (result.chunksWritten === 0) return result;
    }
    stage?.commit();
    return result;
  } finally {
    await loopWorkers?.terminate();
    // Not committed: an error ended the run, and what it wrote goes with the staged folder.
    stage?.discard();
    await Promise.all(opened.map(({ reader }) => reader.close()));
    await Promise.all((pakPlan?.archives ?? []).map((a) => a.close()));
  }
}

/** Which source each package comes from when containers and paks both hold packages: see packageWinners. */
interface PackageWinners {
  /** Containers and paks in mount order for whole packages, with the form their packages take. */
  sources: Array<{ name: string; form: 'zen' | 'legacy' }>;
  /** Package (see packageKey) -> index in `sources` of its mount-order winner. */
  byPackage: Map<string, number>;
}

/**
 * The mount-order winner of each package held by containers (zen form) and paks (legacy form): the highest in mount
 * order of the sources holding any of its files. A package never mixes the two forms (a zen `.uasset` beside a
 * legacy `.uexp` is a broken package): the files of the other form are left to the winner. Within the winner's form
 * the engine's own rule stays: containers override chunk by chunk (a patch container may hold only the chunks that
 * changed), paks file by file. Mount order is the priority (`_N_P`); at equal priority a container wins over a pak
 * (the zen loader looks in the containers' package store first), then the later name as in byMountOrder.
 */
function packageWinners(opened: ReadonlyArray<{ entry: MountEntry; reader: ContainerReader }>, pakOpen: OpenedPaks | undefined): PackageWinners | undefined {
  const pakList = pakOpen?.paks ?? [];
  // Only where both forms are at hand: a game's companion paks hold no packages.
  const pakPackages = pakList.some(({ archive, prefix }) => archive.pak.entries.some((e) => packageKey(prefix + e.path) !== undefined));
  if (opened.length === 0 || !pakPackages) return undefined;
  type Source = { name: string; form: 'zen' | 'legacy'; priority: number; kind: number; sortName: string; container?: number; pak?: number };
  const list: Source[] = [
    ...opened.map(({ entry }, c): Source => ({ name: entry.name, form: 'zen', priority: entry.priority, kind: 1, sortName: entry.name, container: c })),
    ...pakList.map(({ mount }, k): Source => ({ name: mount.name, form: 'legacy', priority: mount.priority, kind: 0, sortName: mount.name.replace(/\.pak$/i, ''), pak: k })),
  ];
  list.sort((a, b) => a.priority - b.priority || a.kind - b.kind || (a.sortName < b.sortName ? -1 : a.sortName > b.sortName ? 1 : 0));
  const byPackage = new Map<string, number>();
  list.forEach((src, s) => {
    if (src.container !== undefined) {
      const toc = opened[src.container]!.reader.toc;
      for (let i = 0; i < toc.chunkCount; i++) {
        const path = toc.chunkPath(i);
        const key = path === undefined ? undefined : packageKey(path);
        if (key !== undefined) byPackage.set(key, s);
      }
      return;
    }
    const { archive, prefix } = pakList[src.pak!]!;
    // A patch pak's delete record takes a lower pak's package away.
    for (const d of archive.pak.deleted) {
      const key = packageKey(prefix + d);
      const w = key === undefined ? undefined : byPackage.get(key);
      if (w !== undefined && list[w]!.pak !== undefined) byPackage.delete(key!);
    }
    for (const e of archive.pak.entries) {
      const key = packageKey(prefix + e.path);
      if (key !== undefined) byPackage.set(key, s);
    }
  });
  return { sources: list.map(({ name, form }) => ({ name, form })), byPackage };
}

/** The manifest as unpack writes it: each new container's chunk entries made when written. */
type LazyManifest = Omit<Manifest, 'containers'> & { containers: Array<Omit<ManifestContainer, 'chunks'> & { chunks: JsonLazyArray<ManifestChunk> | ManifestChunk[] }> };

/** The manifest already in the output folder, if any; one that is not a manifest of this tool stops the run. */
function previousManifest(outdir: string): Manifest | undefined {
  if (!existsSync(outdir)) return undefined;
  try {
    return readManifestFile(outdir);
  } catch (e) {
    if (!(e instanceof IoStoreError) || e.code !== 'BAD_VALUE') throw e;
    throw new IoStoreError('BAD_VALUE', `${e.message}; unpack adds to the manifest of the folder it writes into: remove it or unpack into another folder`);
  }
}

function needsMissingCodec(toc: IoStoreToc, i: number, missing: boolean[]): boolean {
  return firstMissingMethod(toc, i, missing) !== '';
}

function firstMissingMethod(toc: IoStoreToc, i: number, missing: boolean[]): string {
  const first = toc.chunkFirstBlock(i);
  for (let b = first, e = first + toc.chunkBlockCount(i); b < e; b++) {
    const m = toc.blocks.method(b);
    if (missing[m]) return toc.compressionMethods[m]!;
  }
  return '';
}

function codecHint(method: string): string {
  return `register a codec named "${method}" with CodecRegistry.register`;
}
