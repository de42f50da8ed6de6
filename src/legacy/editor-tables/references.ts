import type { ByteReader } from '../../util/bytes.js';
import type { ByteWriter } from '../../zen/byte-writer.js';
import type { LegacyName } from '../package.js';
import { readCount, readName, writeName } from './primitives.js';

/** The depends map: for each export, the package indices (imports < 0, exports > 0) it depends on. */
export function readDependsMap(r: ByteReader, exportCount: number): number[][] {
  r.needArray(exportCount, 4, 'depends map');
  const out: number[][] = [];
  for (let i = 0; i < exportCount; i++) {
    const n = readCount(r, 4, 'export dependencies');
    const deps: number[] = [];
    for (let k = 0; k < n; k++) deps.push(r.i32('export dependency'));
    out.push(deps);
  }
  return out;
}

export function writeDependsMap(w: ByteWriter, map: readonly (readonly number[])[]): void {
  for (const deps of map) {
    w.i32(deps.length);
    for (const d of deps) w.i32(d);
  }
}

/** The soft package references (UE4 384+): the names of the packages the export data refers to softly. */
export function readNameList(r: ByteReader, count: number, what: string): LegacyName[] {
  r.needArray(count, 8, what);
  const out: LegacyName[] = [];
  for (let i = 0; i < count; i++) out.push(readName(r, what));
  return out;
}

export function writeNameList(w: ByteWriter, names: readonly LegacyName[]): void {
  for (const n of names) writeName(w, n);
}

/** Searchable names (UE4 510+): for objects of the package (by package index), names a search may find them by. */
export interface LegacySearchableNames {
  object: number;
  names: LegacyName[];
}

export function readSearchableNames(r: ByteReader): LegacySearchableNames[] {
  const n = readCount(r, 8, 'searchable names');
  const out: LegacySearchableNames[] = [];
  for (let i = 0; i < n; i++) {
    const object = r.i32('searchable names object');
    out.push({ object, names: readNameList(r, readCount(r, 8, 'searchable names'), 'searchable name') });
  }
  return out;
}

export function writeSearchableNames(w: ByteWriter, list: readonly LegacySearchableNames[]): void {
  w.i32(list.length);
  for (const e of list) {
    w.i32(e.object);
    w.i32(e.names.length);
    writeNameList(w, e.names);
  }
}
