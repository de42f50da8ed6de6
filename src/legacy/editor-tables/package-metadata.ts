import type { ByteReader } from '../../util/bytes.js';
import type { ByteWriter } from '../../zen/byte-writer.js';
import type { LegacyName } from '../package.js';
import type { EditorTableFormat } from './format.js';
import { readCount, readName, writeFString, writeName } from './primitives.js';
import { readSoftObjectPathRef, writeSoftObjectPathRef, type LegacySoftObjectPathRef } from './soft-object-paths.js';

/** One metadata value: a name (`ToolTip`, `Category` ...) and its text. */
export interface LegacyMetaDataValue {
  key: LegacyName;
  value: string;
}

/**
 * The package metadata (UE5 1014+ editor packages, at MetaDataOffset; before, it was an export): the values of
 * each object (by soft object path) and of the package itself.
 */
export interface LegacyPackageMetaData {
  objects: Array<{ object: LegacySoftObjectPathRef; values: LegacyMetaDataValue[] }>;
  root: LegacyMetaDataValue[];
}

function readValues(r: ByteReader, n: number): LegacyMetaDataValue[] {
  r.needArray(n, 12, 'metadata values');
  const out: LegacyMetaDataValue[] = [];
  for (let i = 0; i < n; i++) out.push({ key: readName(r, 'metadata key'), value: r.fstring('metadata value') });
  return out;
}

/** i32 object count, i32 root count, then each object's path and values (a counted map), then the root values. */
export function readPackageMetaData(r: ByteReader, f: EditorTableFormat): LegacyPackageMetaData {
  const objectCount = readCount(r, 8, 'metadata objects');
  const rootCount = readCount(r, 12, 'package metadata values');
  const objects: LegacyPackageMetaData['objects'] = [];
  for (let i = 0; i < objectCount; i++) {
    const object = readSoftObjectPathRef(r, f);
    objects.push({ object, values: readValues(r, readCount(r, 12, 'object metadata values')) });
  }
  return { objects, root: readValues(r, rootCount) };
}

export function writePackageMetaData(w: ByteWriter, m: LegacyPackageMetaData, f: EditorTableFormat): void {
  w.i32(m.objects.length);
  w.i32(m.root.length);
  const values = (list: readonly LegacyMetaDataValue[]) => {
    for (const v of list) {
      writeName(w, v.key);
      writeFString(w, v.value);
    }
  };
  for (const o of m.objects) {
    writeSoftObjectPathRef(w, o.object, f);
    w.i32(o.values.length);
    values(o.values);
  }
  values(m.root);
}
