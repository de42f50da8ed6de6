import type { ByteReader } from '../util/bytes.js';
import type { ByteWriter } from '../zen/byte-writer.js';

/**
 * FObjectDataResource (UE 5.2+, the data resource table at DataResourceOffset): where each bulk data payload of
 * the package lives. Export data refers to these entries by index.
 */
export interface LegacyDataResource {
  /** EObjectDataResourceFlags. */
  flags: number;
  /** Version 2+ (UE 5.5+): the cooked index of the bulk data file (`.ubulk`, `.ubulk_1` ...). */
  cookedIndex: number;
  serialOffset: number;
  duplicateSerialOffset: number;
  serialSize: number;
  rawSize: number;
  /** FPackageIndex of the export that owns the payload. */
  outerIndex: number;
  /** EBulkDataFlags. */
  legacyBulkDataFlags: number;
}

/** Table versions: 1 Initial (5.2-5.4); 2 AddedCookedIndex (5.5+, checked on the corpus pairs). */
export const DATA_RESOURCE_VERSION = { Initial: 1, AddedCookedIndex: 2 } as const;

export const dataResourceEntrySize = (version: number): number => (version >= DATA_RESOURCE_VERSION.AddedCookedIndex ? 45 : 44);

function i64n(r: ByteReader, what: string): number {
  const at = r.pos;
  const v = r.i64(what);
  if (v < -1n || v > BigInt(Number.MAX_SAFE_INTEGER)) r.fail('BAD_VALUE', `${what} ${v} is out of range`, at);
  return Number(v);
}

/** Reads the table at the cursor: u32 version, i32 count, entries. */
export function readDataResources(r: ByteReader): { version: number; entries: LegacyDataResource[] } {
  const at = r.pos;
  const version = r.u32('data resource version');
  if (version < DATA_RESOURCE_VERSION.Initial || version > DATA_RESOURCE_VERSION.AddedCookedIndex) r.fail('UNSUPPORTED', `data resource table version ${version} is not known`, at);
  const count = r.i32('data resource count');
  const size = dataResourceEntrySize(version);
  r.needArray(count, size, 'data resources');
  const entries: LegacyDataResource[] = [];
  for (let i = 0; i < count; i++) {
    const flags = r.u32('data resource flags');
    const cookedIndex = version >= DATA_RESOURCE_VERSION.AddedCookedIndex ? r.u8('cooked index') : 0;
    entries.push({
      flags,
      cookedIndex,
      serialOffset: i64n(r, 'data resource offset'),
      duplicateSerialOffset: i64n(r, 'data resource duplicate offset'),
      serialSize: i64n(r, 'data resource size'),
      rawSize: i64n(r, 'data resource raw size'),
      outerIndex: r.i32('data resource outer'),
      legacyBulkDataFlags: r.u32('bulk data flags'),
    });
  }
  return { version, entries };
}

export function writeDataResources(w: ByteWriter, version: number, entries: readonly LegacyDataResource[]): void {
  w.u32(version);
  w.i32(entries.length);
  for (const e of entries) {
    w.u32(e.flags);
    if (version >= DATA_RESOURCE_VERSION.AddedCookedIndex) w.u8(e.cookedIndex);
    w.i64n(e.serialOffset);
    w.i64n(e.duplicateSerialOffset);
    w.i64n(e.serialSize);
    w.i64n(e.rawSize);
    w.i32(e.outerIndex);
    w.u32(e.legacyBulkDataFlags);
  }
}
