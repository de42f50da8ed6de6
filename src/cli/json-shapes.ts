/**
 * The JSON each command prints: one shape whatever the number of inputs, and the same names for the same counts in
 * every command (`chunks`, `files`, `bytes` counts, `ok`). Fields of the single-input forms that scripts read are
 * kept beside the new ones (see the README, "JSON output").
 */
import type { ContainerInfo } from '../toc/listing.js';
import type { PakInfo } from '../pak/listing.js';

type Named<T> = T & { name: string };
/** What the totals read of a pak's info (a pak whose index needs a key has no entry count). */
type PakTotals = Pick<PakInfo, 'file'> & { entryCount?: number | null; rawSize?: number; storedSize?: number };

/** `info --json`: every container and pak, and totals; one input also keeps its own fields at the top. */
export function infoJson(containers: ReadonlyArray<Named<ContainerInfo>>, paks: ReadonlyArray<Named<PakTotals>>, single?: object): object {
  const c = containers.map((i) => ({ ...i, kind: 'container', chunks: i.chunkCount, files: i.fileCount, bytes: i.rawSize, storedBytes: i.storedSize }));
  const p = paks.map((i) => ({ ...i, kind: 'pak', files: i.entryCount ?? null, bytes: i.rawSize ?? null, storedBytes: i.storedSize ?? null }));
  const sum = (xs: ReadonlyArray<number | null | undefined>) => xs.reduce<number>((a, x) => a + (x ?? 0), 0);
  return {
    ...single,
    containers: c,
    paks: p,
    chunks: sum(containers.map((i) => i.chunkCount)),
    files: sum([...containers.map((i) => i.fileCount), ...paks.map((i) => i.entryCount)]),
    bytes: sum([...containers.map((i) => i.rawSize), ...paks.map((i) => i.rawSize)]),
    storedBytes: sum([...containers.map((i) => i.storedSize), ...paks.map((i) => i.storedSize)]),
  };
}

/**
 * `list --json`: `inputs`, `count` (rows), `chunks` and `pakFiles` (rows, each naming its `container`). Kept for
 * scripts: `file` and `mountPoint` of one input (and `version`, and `files` for its rows, of one .pak); `files` for
 * the inputs of several.
 */
export function listJson(o: { inputs: string[]; chunks: object[]; pakFiles: object[]; single?: object; several: boolean }): object {
  return { ...o.single, inputs: o.inputs, ...(o.several ? { files: o.inputs } : {}), count: o.chunks.length + o.pakFiles.length, chunks: o.chunks, pakFiles: o.pakFiles };
}

/** `verify --json`: every result (`kind` container or pak), `ok`, and totals; one input keeps its result's fields. */
export function verifyJson(containers: ReadonlyArray<{ ok: boolean; chunks?: number; bytes?: number }>, paks: ReadonlyArray<{ ok: boolean; entries?: number; bytes?: number }>, single: boolean): object {
  const all = [...containers.map((r) => ({ ...r, kind: 'container' })), ...paks.map((r) => ({ ...r, kind: 'pak' }))];
  const ok = all.every((r) => r.ok);
  const totals = {
    chunks: containers.reduce((a, r) => a + (r.chunks ?? 0), 0),
    files: paks.reduce((a, r) => a + (r.entries ?? 0), 0),
    bytes: all.reduce((a, r) => a + (r.bytes ?? 0), 0),
  };
  return { ...(single ? all[0] : {}), containers: all, ok, ...totals };
}
