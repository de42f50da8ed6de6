// unpack's plan of the containers' chunks: which chunk each output path comes from, the chunks left to another
// source, and each container's manifest entry (its chunk entries made as the manifest is written).
import type { ContainerReader } from '../cas/container-reader.js';
import type { CodecRegistry } from '../codecs/registry.js';
import { chunkTypeFromName } from '../toc/chunk-id.js';
import type { IoStoreToc } from '../toc/toc.js';
import { manifestChunk, manifestChunkJson, manifestContainer, type Manifest, type ManifestChunk, type ManifestContainer } from '../layout/manifest.js';
import { ManifestChunkWriter } from '../layout/manifest-bytes.js';
import { manifestChunkPieces } from '../layout/manifest-wasm.js';
import { packageKey } from '../layout/package-files.js';
import { chunkOutputPath } from '../layout/unnamed.js';
import type { MountEntry } from '../mount/mount.js';
import { JsonLazyArray } from '../util/json-pieces.js';
import { IntList } from '../util/int-list.js';
import { KeyTable } from '../util/key-table.js';
import { plural } from '../util/plural.js';
import { ChunkIdOwners, ChunkPlan } from './chunk-plan.js';
import type { PackageForms } from './package-winners.js';
import type { UnpackFailure, UnpackResult } from './unpack.js';

/** A container of the run, opened. */
export interface OpenedContainer {
  entry: MountEntry;
  reader: ContainerReader;
}

/** The manifest as unpack writes it: each new container's chunk entries made when written. */
export type LazyManifest = Omit<Manifest, 'containers'> & { containers: LazyManifestContainer[] };
type LazyManifestContainer = Omit<ManifestContainer, 'chunks'> & { chunks: JsonLazyArray<ManifestChunk> | ManifestChunk[] };

export interface ContainersPlan {
  plan: ChunkPlan;
  /** The containers' manifest entries, in run order. */
  manifest: LazyManifestContainer[];
  summary: UnpackResult['containers'];
  /** By container: the chunks written under another name than their own (filled in when names are claimed). */
  renamedAt: Array<Map<number, string>>;
}

export interface PlanChoices {
  /** Only chunks of this type name. */
  type?: string;
  /** Only output paths this matches. */
  match?: (path: string) => boolean;
  /** Packages held in both forms: the losing form's files are left out. */
  forms?: PackageForms;
  codecs: CodecRegistry;
}

/**
 * Plans every container's chunks: later (higher-priority) containers override earlier ones chunk id by chunk id, as
 * the engine's lookup does; a package held by a pak wins over its zen form when the mount order says so; chunks
 * whose codec is missing are failures (one per container and method, pushed to `failures`); a path two containers
 * write comes from the later one, with a warning.
 */
export function planContainers(opened: readonly OpenedContainer[], choices: PlanChoices, warnings: string[], failures: UnpackFailure[]): ContainersPlan {
  const tocs = opened.map(({ reader }) => reader.toc);
  // A container alone owns all its chunks: no table of its ids.
  const owners = opened.length > 1 ? new ChunkIdOwners(tocs) : undefined;
  const plan = new ChunkPlan(tocs, opened.map(({ entry }) => entry.name));
  // Plan positions by output path, when two containers could write the same one.
  const byPath = opened.length > 1 ? new KeyTable((k) => plan.path(k)) : undefined;
  const renamedAt = opened.map(() => new Map<number, string>());
  const out: ContainersPlan = { plan, manifest: [], summary: [], renamedAt };
  opened.forEach(({ entry }, c) => {
    const toc = tocs[c]!;
    const type = choices.type === undefined ? undefined : chunkTypeFromName(choices.type, toc.generation);
    const missing = toc.compressionMethods.map((m, k) => k > 0 && !choices.codecs.get(m));
    const chosen: ChosenChunks =
      type === undefined && !choices.match && !choices.forms && !owners && !missing.some(Boolean) && !byPath
        ? wholeContainer(plan, c, toc)
        : chooseChunks({ toc, c, opened, type, missing, owners, byPath, plan, choices, warnings });
    const chunks = chosen.listed;
    const { overriddenBy } = chosen;
    const renamed = renamedAt[c]!;
    let writer: ManifestChunkWriter | undefined;
    // The block alignment is worked out as the manifest is written (while the workers write chunks).
    out.manifest.push(Object.assign(manifestContainer(toc, entry.name, entry.priority, { lazyAlignment: true }), {
      chunks: new JsonLazyArray(
        chunks.length,
        (k) => {
          const i = chunks[k]!;
          const chunk = manifestChunk(toc, i, renamed.get(i) ?? chunkOutputPath(toc, i));
          const by = overriddenBy.get(i);
          if (by !== undefined) chunk.overriddenBy = by;
          return chunk;
        },
        (k, indent) => manifestChunkJson(toc, chunks[k]!, renamed.get(chunks[k]!), overriddenBy.get(chunks[k]!), indent),
        (k, indent, out) => {
          if (writer?.indent !== indent) writer = new ManifestChunkWriter(toc, indent, chunks.length);
          writer.write(out, chunks[k]!, renamed.get(chunks[k]!), overriddenBy.get(chunks[k]!));
        },
        (indent) =>
          manifestChunkPieces(toc, chunks, indent, renamed.size + overriddenBy.size > 0 ? (i) => renamed.has(i) || overriddenBy.has(i) : undefined, (k, out) => {
            if (writer?.indent !== indent) writer = new ManifestChunkWriter(toc, indent, chunks.length);
            writer.write(out, chunks[k]!, renamed.get(chunks[k]!), overriddenBy.get(chunks[k]!));
          }),
      ),
    }));
    for (const [method, n] of chosen.skipped) {
      failures.push({ container: entry.name, index: -1, code: 'CODEC', message: `${entry.utoc}: ${plural(n, 'chunk')} need${n === 1 ? 's' : ''} the ${method} codec, which is not available; ${codecHint(method)}` });
    }
    out.summary.push({ name: entry.name, priority: entry.priority, chunks: chunks.length, written: 0, overridden: overriddenBy.size, overriddenBy: [...chosen.by] });
  });
  return out;
}

/** What the plan took of one container. */
interface ChosenChunks {
  /** The chunks the manifest lists (TOC indices, in TOC order): those planned and those left to another source. */
  listed: Int32Array;
  /** Chunk -> the source it is left to. */
  overriddenBy: Map<number, string>;
  /** The sources chunks were left to. */
  by: Set<string>;
  /** Missing codec method -> chunks that need it. */
  skipped: Map<string, number>;
}

/** A container alone, all its chunks chosen (most games' unpack): planned in one call, not a test per chunk. */
function wholeContainer(plan: ChunkPlan, c: number, toc: IoStoreToc): ChosenChunks {
  plan.addAll(c);
  return { listed: toc.chunksInTocOrder(), overriddenBy: new Map(), by: new Set(), skipped: new Map() };
}

interface ChooseContext {
  toc: IoStoreToc;
  c: number;
  opened: readonly OpenedContainer[];
  type: number | undefined;
  missing: boolean[];
  owners: ChunkIdOwners | undefined;
  byPath: KeyTable | undefined;
  plan: ChunkPlan;
  choices: PlanChoices;
  warnings: string[];
}

/** Container c's chunks, one by one: its type, the filter, overrides, package forms, missing codecs, path clashes. */
function chooseChunks(x: ChooseContext): ChosenChunks {
  const { toc, c, opened, type, missing, owners, byPath, plan, warnings } = x;
  const { match, forms } = x.choices;
  const name = opened[c]!.entry.name;
  // Each chunk's blocks are looked at only when a codec is missing (the plan is made while the workers wait).
  const anyMissing = missing.some(Boolean);
  const skipped = new Map<string, number>();
  const listed = new IntList();
  const overriddenBy = new Map<number, string>();
  const by = new Set<string>();
  const needPath = match !== undefined || forms !== undefined || byPath !== undefined;
  for (let i = 0; i < toc.chunkCount; i++) {
    if (type !== undefined && toc.chunkType(i) !== type) continue;
    const path = needPath ? chunkOutputPath(toc, i) : '';
    if (match && !match(path)) continue;
    const key = forms ? packageKey(path) : undefined;
    const packageWinner = key === undefined ? undefined : forms!.winners.byPackage.get(key);
    const winner = owners ? owners.owner(c, i) : c;
    if (packageWinner !== undefined && forms!.winners.sources[packageWinner]!.form !== 'zen') {
      const source = forms!.winners.sources[packageWinner]!.name;
      overriddenBy.set(i, source);
      by.add(source);
      forms!.leftOut(key!, path, name, 'zen', packageWinner);
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
        warnings.push(`${path}: written from ${name} (chunk ${toc.chunkIdHex(i)}) over ${was.container}'s chunk ${was.id}`);
        plan.replace(clash, c, i);
      } else {
        const k = plan.add(c, i);
        byPath?.set(path, k);
      }
    }
    listed.push(i);
  }
  return { listed: listed.toInt32Array(), overriddenBy, by, skipped };
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
