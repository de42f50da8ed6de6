import { IoStoreError } from '../../errors.js';
import type { LegacyPackage } from '../../legacy/package.js';
import type { DependencyBundleHeader, ExportBundleEntry } from '../../zen/export-map.js';

/** EObjectFlags bits the conversion looks at. */
export const RF_PUBLIC = 0x1;

/** An export or a cell export, as the dependency graph sees it (cells come after the exports, never public). */
interface Unit {
  firstExportDependency: number;
  serializationBeforeSerializationDependencies: number;
  createBeforeSerializationDependencies: number;
  serializationBeforeCreateDependencies: number;
  createBeforeCreateDependencies: number;
  isPublic: boolean;
  /** Its index among the exports, or among the cell exports (for error messages). */
  index: number;
  cell: boolean;
}

/** The exports, then the cell exports (which have no "before create" dependencies). */
function units(pkg: LegacyPackage): Unit[] {
  const out: Unit[] = new Array(pkg.exports.length + pkg.cellExports.length);
  pkg.exports.forEach((e, i) => {
    out[i] = {
      firstExportDependency: e.firstExportDependency,
      serializationBeforeSerializationDependencies: e.serializationBeforeSerializationDependencies,
      createBeforeSerializationDependencies: e.createBeforeSerializationDependencies,
      serializationBeforeCreateDependencies: e.serializationBeforeCreateDependencies,
      createBeforeCreateDependencies: e.createBeforeCreateDependencies,
      isPublic: (e.objectFlags & RF_PUBLIC) !== 0,
      index: i,
      cell: false,
    };
  });
  pkg.cellExports.forEach((c, i) => {
    out[pkg.exports.length + i] = {
      firstExportDependency: c.firstExportDependency,
      serializationBeforeSerializationDependencies: c.serializationBeforeSerializationDependencies,
      createBeforeSerializationDependencies: c.createBeforeSerializationDependencies,
      serializationBeforeCreateDependencies: 0,
      createBeforeCreateDependencies: 0,
      isPublic: false,
      index: i,
      cell: true,
    };
  });
  return out;
}

/** `export 3` / `cell export 0`, and the offset of its entry, for an error. */
function unitWhere(pkg: LegacyPackage, u: Unit): { what: string; at: number } {
  return u.cell ? { what: `cell export ${u.index}`, at: pkg.summary.cellExportOffset } : { what: `export ${u.index}`, at: pkg.summary.exportOffset + u.index * pkg.layout.exportEntrySize };
}

/**
 * Export bundle entries and dependency bundles from the legacy preload dependencies. The engine orders the create
 * and serialize commands topologically over the arcs between exports, taking among ready commands public exports
 * first, then creates before serializes, then lower export indices (UE4 takes the lowest export index first). Cell
 * exports follow the exports in every table (index exports + k), and package indices past the import map name cell
 * imports, in legacy and zen alike.
 */
export function dependencies(pkg: LegacyPackage, imports: bigint[]) {
  const all = units(pkg);
  const n = all.length;
  const headers: DependencyBundleHeader[] = [];
  const entries: number[] = [];
  const deps = pkg.preloadDependencies;
  // Dependencies kept in zen: exports and objects of other packages (script objects are always loaded).
  const packageImport = new Uint8Array(imports.length);
  for (let k = 0; k < imports.length; k++) packageImport[k] = imports[k]! >> 62n === 2n ? 1 : 0;
  for (const e of all) {
    const counts = [e.serializationBeforeSerializationDependencies, e.createBeforeSerializationDependencies, e.serializationBeforeCreateDependencies, e.createBeforeCreateDependencies];
    const total = counts[0]! + counts[1]! + counts[2]! + counts[3]!;
    if (e.firstExportDependency >= 0 && (e.firstExportDependency + total > deps.length || counts.some((c) => c < 0))) {
      const { what, at: offset } = unitWhere(pkg, e);
      throw new IoStoreError('BAD_VALUE', `${what}'s preload dependencies run past the ${deps.length}-entry list`, { file: pkg.source, offset });
    }
    const first = e.firstExportDependency < 0 ? 0 : e.firstExportDependency;
    const listed = e.firstExportDependency < 0 ? 0 : total;
    for (let k = first; k < first + listed; k++) {
      const d = deps[k]!;
      if (d > n || d < -imports.length) {
        throw new IoStoreError('BAD_VALUE', `${unitWhere(pkg, e).what} depends on package index ${d}, outside the import and export maps`, { file: pkg.source, offset: pkg.summary.preloadDependencyOffset });
      }
    }
    // Legacy lists SBS, CBS, SBC, CBC; zen CBC, SBC, CBS, SBS.
    const header: DependencyBundleHeader = {
      // An export without preload dependencies has no entries to point at (the engine's cook writes -1 then).
      firstEntryIndex: listed === 0 ? -1 : entries.length,
      createBeforeCreate: 0,
      serializeBeforeCreate: 0,
      createBeforeSerialize: 0,
      serializeBeforeSerialize: 0,
    };
    const kept = [0, 0, 0, 0];
    for (let g = 3; g >= 0 && listed > 0; g--) {
      let at = first;
      for (let q = 0; q < g; q++) at += counts[q]!;
      for (let k = at; k < at + counts[g]!; k++) {
        const d = deps[k]!;
        if (d > 0 || (d < 0 && packageImport[-d - 1] === 1)) {
          entries.push(d);
          kept[g]!++;
        }
      }
    }
    header.serializeBeforeSerialize = kept[0]!;
    header.createBeforeSerialize = kept[1]!;
    header.serializeBeforeCreate = kept[2]!;
    header.createBeforeCreate = kept[3]!;
    headers.push(header);
  }
  // Among ready commands: public exports first, then creates before serializes, then lower export indices.
  const keys = new Float64Array(n * 2);
  for (let k = 0; k < n * 2; k++) keys[k] = (all[k >> 1]!.isPublic ? 0 : 2 * n) + (k & 1) * n + (k >> 1);
  const bundleEntries = topologicalOrder(n * 2, exportArcs(pkg, all), keys, pkg);
  return { bundleEntries, dependencyHeaders: headers, dependencyEntries: entries };
}

/**
 * UE4's single export bundle (checked on the UE 4.27 pair): the same arcs as UE5's, ordered topologically taking
 * among ready commands the lowest export index, create before serialize.
 */
export function ue4BundleOrder(pkg: LegacyPackage): ExportBundleEntry[] {
  const n = pkg.exports.length;
  const arcs = exportArcs(pkg);
  const keys = new Float64Array(n * 2);
  for (let k = 0; k < n * 2; k++) keys[k] = k;
  return topologicalOrder(n * 2, arcs, keys, pkg);
}

/** Arcs between the commands of a package's exports (node 2i: create export i, 2i+1: serialize it). */
function exportArcs(pkg: LegacyPackage, all: readonly Unit[] = units(pkg)): number[][] {
  const n = all.length;
  const out: number[][] = Array.from({ length: n * 2 }, () => []);
  all.forEach((e, i) => {
    out[i * 2]!.push(i * 2 + 1);
    if (e.firstExportDependency < 0) return;
    let at = e.firstExportDependency;
    const groups: Array<[number, number, number]> = [
      [e.serializationBeforeSerializationDependencies, 1, 1],
      [e.createBeforeSerializationDependencies, 0, 1],
      [e.serializationBeforeCreateDependencies, 1, 0],
      [e.createBeforeCreateDependencies, 0, 0],
    ];
    for (const [count, fromCmd, toCmd] of groups) {
      for (let k = 0; k < count; k++) {
        const d = pkg.preloadDependencies[at++];
        if (d === undefined) throw new IoStoreError('BAD_VALUE', `${unitWhere(pkg, e).what}'s preload dependencies run past the list`, { file: pkg.source, offset: pkg.summary.preloadDependencyOffset });
        if (d > 0 && d <= n) out[(d - 1) * 2 + fromCmd]!.push(i * 2 + toCmd);
      }
    }
  });
  return out;
}

/** Kahn's topological sort taking the ready node of least key each time (a binary heap keeps it n log n). */
function topologicalOrder(count: number, out: number[][], keys: Float64Array, pkg: LegacyPackage): ExportBundleEntry[] {
  const before = (a: number, b: number) => keys[a]! < keys[b]!;
  const incoming = new Int32Array(count);
  for (const list of out) for (const t of list) incoming[t]!++;
  const heap: number[] = [];
  const push = (x: number) => {
    let i = heap.push(x) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(heap[i]!, heap[p]!)) break;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  };
  const pop = (): number => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = i * 2 + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top;
  };
  for (let k = 0; k < count; k++) if (incoming[k] === 0) push(k);
  const order: ExportBundleEntry[] = [];
  while (heap.length > 0) {
    const k = pop();
    order.push({ localExportIndex: k >> 1, commandType: k & 1 });
    for (const t of out[k]!) if (--incoming[t]! === 0) push(t);
  }
  if (order.length !== count) {
    throw new IoStoreError('BAD_VALUE', 'the preload dependencies between exports form a cycle', { file: pkg.source, offset: pkg.summary.preloadDependencyOffset });
  }
  return order;
}
