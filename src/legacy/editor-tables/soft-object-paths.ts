import type { ByteReader } from '../../util/bytes.js';
import type { ByteWriter } from '../../zen/byte-writer.js';
import type { LegacyName } from '../package.js';
import { FORTNITE_MAIN, type EditorTableFormat } from './format.js';
import { readLegacySubPath, readName, readUtf8String, writeFString, writeName, writeUtf8String } from './primitives.js';

/**
 * FSoftObjectPath as the header stores it (UE5 1007+): the top-level asset path as two names (package, asset) and
 * the sub-path below the asset (`PersistentLevel.Actor`, '' for the asset itself).
 */
export interface LegacySoftObjectPath {
  packageName: LegacyName;
  assetName: LegacyName;
  subPath: string;
}

const utf8SubPaths = (f: EditorTableFormat) => f.fortniteMain !== undefined && f.fortniteMain >= FORTNITE_MAIN.SoftObjectPathUtf8SubPaths;

export function readSoftObjectPath(r: ByteReader, f: EditorTableFormat): LegacySoftObjectPath {
  const packageName = readName(r, 'soft object path package');
  const assetName = readName(r, 'soft object path asset');
  const subPath = utf8SubPaths(f) ? readUtf8String(r, 'soft object sub-path') : readLegacySubPath(r, 'soft object sub-path');
  return { packageName, assetName, subPath };
}

export function writeSoftObjectPath(w: ByteWriter, p: LegacySoftObjectPath, f: EditorTableFormat): void {
  writeName(w, p.packageName);
  writeName(w, p.assetName);
  if (utf8SubPaths(f)) writeUtf8String(w, p.subPath);
  else writeFString(w, p.subPath);
}

/** The soft object path list (UE5 1008+): `count` paths, which the other tables and export data refer to by index. */
export function readSoftObjectPaths(r: ByteReader, count: number, f: EditorTableFormat): LegacySoftObjectPath[] {
  r.needArray(count, 20, 'soft object paths');
  const out: LegacySoftObjectPath[] = [];
  for (let i = 0; i < count; i++) out.push(readSoftObjectPath(r, f));
  return out;
}

/**
 * A soft object path where a table other than the list holds one: an index into the list when the package has
 * one, else the path itself.
 */
export type LegacySoftObjectPathRef = number | LegacySoftObjectPath;

export function readSoftObjectPathRef(r: ByteReader, f: EditorTableFormat): LegacySoftObjectPathRef {
  return f.softObjectPathIndices ? r.i32('soft object path index') : readSoftObjectPath(r, f);
}

export function writeSoftObjectPathRef(w: ByteWriter, p: LegacySoftObjectPathRef, f: EditorTableFormat): void {
  if (typeof p === 'number') w.i32(p);
  else writeSoftObjectPath(w, p, f);
}
