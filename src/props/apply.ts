import { IoStoreError } from '../errors.js';
import { casePreservingNameHash, isWideLegacyName, nonCasePreservingNameHash } from '../legacy/name-hash.js';
import { parseLegacyPackage, type LegacyPackage } from '../legacy/package.js';
import { readLegacySummary } from '../legacy/summary.js';
import { taggedPropertiesEnd } from '../legacy/tagged-properties.js';
import { ByteReader } from '../util/bytes.js';
import { nameHash } from '../zen/name-batch.js';
import { serializeZenPackageHeader } from '../zen/zen-package-writer.js';
import { exportChunkOffsets, parseZenPackage, type ZenPackage } from '../zen/zen-package.js';
import { writeExportProps, type ExportPropsJson } from './export-props.js';
import { sameBytes, Wr } from './io.js';
import { defineLocalStructs, legacyExportBytes, legacyExportInfos, legacyPropsPackage, zenExportBytes, zenExportInfos, zenPropsPackage, type PackagePropsJson, type ReadPropsOptions } from './package-props.js';
import { PropsWriteError, Session } from './prims.js';

/**
 * Writing edited JSON back into a package: each export's data is written from its JSON, the package's tables are
 * updated for the new sizes (and for names the JSON added, appended to the name map), and the rest of the package
 * stays byte for byte.
 */

export interface AppliedLegacy {
  uasset: Uint8Array;
  /** Undefined when the package keeps its export data in the .uasset (UE 4.14-4.24 packages without a .uexp). */
  uexp: Uint8Array | undefined;
  /** Exports whose data changed. */
  changed: number[];
  addedNames: string[];
}

function checkJson(json: PackagePropsJson, exportCount: number, source: string): void {
  if (json?.format !== 'iostore-props' || json.version !== 1 || !Array.isArray(json.exports)) {
    throw new IoStoreError('USAGE', 'not a props JSON document (format "iostore-props", version 1)', { file: source });
  }
  for (const e of json.exports) {
    if (!Number.isInteger(e?.index) || e.index < 0 || e.index >= exportCount) throw new IoStoreError('USAGE', `export index ${e?.index} is not one of the package's ${exportCount} exports`, { file: source });
  }
}

function newExportData(json: PackagePropsJson, S: Session, old: readonly Uint8Array[], source: string): Uint8Array[] {
  const out = [...old];
  for (const e of json.exports) {
    try {
      const data = writeExportProps(e as ExportPropsJson, S, old[e.index]!.length);
      // Unchanged data stays the same array: callers tell changed exports by identity.
      if (!sameBytes(data, old[e.index]!)) out[e.index] = data;
    } catch (err) {
      if (err instanceof PropsWriteError || err instanceof Error) throw new IoStoreError('BAD_VALUE', `export ${e.index} (${e.name}): ${err.message}`, { file: source });
      throw err;
    }
  }
  return out;
}

/** A ByteReader that notes where each labelled field was read, to patch the summary's offsets in place. */
class FieldRecorder extends ByteReader {
  readonly fields: { what: string; at: number; size: 4 | 8 }[] = [];
  override i32(what = 'i32'): number {
    this.fields.push({ what, at: this.pos, size: 4 });
    return super.i32(what);
  }
  override i64(what = 'i64'): bigint {
    this.fields.push({ what, at: this.pos, size: 8 });
    return super.i64(what);
  }
}

/** Summary fields holding offsets into the .uasset (they move when the name map grows). */
const OFFSET_FIELDS = new Set([
  'total header size', 'soft object path offset', 'gatherable text offset', 'export offset', 'import offset', 'cell export offset', 'cell import offset',
  'metadata offset', 'depends offset', 'soft package reference offset', 'searchable names offset', 'thumbnail table offset',
  'import type hierarchies offset', 'asset registry data offset', 'bulk data start offset', 'world tile info offset',
  'preload dependency offset', 'payload toc offset', 'data resource offset',
]);

function nameMapEnd(pkg: LegacyPackage, uasset: Uint8Array): number {
  const r = new ByteReader(uasset, pkg.source);
  r.pos = pkg.summary.nameOffset;
  for (let i = 0; i < pkg.names.length; i++) {
    r.fstring('name');
    if (pkg.layout.nameHashes) r.skip(4);
  }
  return r.pos;
}

function nameEntryBytes(n: string, hashes: boolean): Uint8Array {
  const w = new Wr(n.length * 2 + 16);
  if (isWideLegacyName(n)) w.fstring(n, true);
  else {
    w.i32(n.length + 1);
    for (let i = 0; i < n.length; i++) w.u8(n.charCodeAt(i));
    w.u8(0);
  }
  if (hashes) {
    w.u16(nonCasePreservingNameHash(n));
    w.u16(casePreservingNameHash(n));
  }
  return w.done();
}

/** Writes props JSON into a legacy package; returns the new .uasset and .uexp. */
export function applyLegacyProps(uasset: Uint8Array, uexp: Uint8Array | undefined, json: PackagePropsJson, o: ReadPropsOptions = {}): AppliedLegacy {
  const source = o.source ?? 'package';
  const pkg = parseLegacyPackage(uasset, { source, ...(o.engine ? { engine: o.engine } : {}), ...(o.packageName ? { packageName: o.packageName } : {}) });
  checkJson(json, pkg.exports.length, source);
  const P = legacyPropsPackage(pkg, uasset, o);
  const S = new Session(P);
  const oldNames = P.names.length;
  const old = legacyExportBytes(pkg, uasset, uexp);
  defineLocalStructs(S, old, legacyExportInfos(pkg));
  const data = newExportData(json, S, old, source);
  const addedNames = P.names.slice(oldNames);
  const rec = new FieldRecorder(uasset, source);
  readLegacySummary(rec, { fileVersionUE4: pkg.summary.fileVersionUE4, fileVersionUE5: pkg.summary.fileVersionUE5 });
  const { head, delta } = headerWithNames(pkg, uasset, rec, addedNames, oldNames, P.names.length);
  const layout = layOutExports(pkg, old, data, delta);
  const changed = patchExportEntries(pkg, uasset, head, delta, layout, old, data, P.names);
  moveBulkDataStart(rec, head, layout.sizeShift);
  return { ...assembleLegacy(pkg, uasset, uexp, head, delta, layout, old, data), changed, addedNames };
}

/** The header with `added` names appended to the name map, every offset past it moved and the name counts set. */
function headerWithNames(pkg: LegacyPackage, uasset: Uint8Array, rec: FieldRecorder, added: readonly string[], oldNames: number, nameCount: number): { head: Uint8Array; delta: number } {
  const header = pkg.summary.totalHeaderSize;
  const head = uasset.slice(0, header);
  const delta = added.reduce((n, name) => n + nameEntryBytes(name, pkg.layout.nameHashes).length, 0);
  if (delta === 0) return { head, delta };
  const end = nameMapEnd(pkg, uasset);
  const grown = new Uint8Array(header + delta);
  grown.set(head.subarray(0, end), 0);
  let at = end;
  for (const n of added) {
    const b = nameEntryBytes(n, pkg.layout.nameHashes);
    grown.set(b, at);
    at += b.length;
  }
  grown.set(head.subarray(end), end + delta);
  const v = new DataView(grown.buffer);
  const generationNameCounts = rec.fields.filter((f) => f.what === 'generation name count');
  for (const f of rec.fields) {
    if (f.size === 4) {
      const x = v.getInt32(f.at, true);
      if (OFFSET_FIELDS.has(f.what) && x >= end) v.setInt32(f.at, x + delta, true);
      else if (f.what === 'name count' || f.what === 'names referenced from export data') v.setInt32(f.at, nameCount, true);
    } else if (OFFSET_FIELDS.has(f.what)) {
      const x = v.getBigInt64(f.at, true);
      if (x >= BigInt(end)) v.setBigInt64(f.at, x + BigInt(delta), true);
    }
  }
  const lastGen = generationNameCounts[generationNameCounts.length - 1];
  if (lastGen && v.getInt32(lastGen.at, true) === oldNames) v.setInt32(lastGen.at, nameCount, true);
  return { head: grown, delta };
}

/** Where each export's new data goes: in the old order of the data, from where it started (moved by `delta`). */
interface ExportLayout {
  order: number[];
  offsets: number[];
  /** How far everything after the export data moves. */
  sizeShift: number;
}

function layOutExports(pkg: LegacyPackage, old: readonly Uint8Array[], data: readonly Uint8Array[], delta: number): ExportLayout {
  const newHeader = pkg.summary.totalHeaderSize + delta;
  const order = pkg.exports.map((_, i) => i).sort((a, b) => pkg.exports[a]!.serialOffset - pkg.exports[b]!.serialOffset);
  let pos = order.length > 0 ? pkg.exports[order[0]!]!.serialOffset + delta : newHeader;
  const offsets: number[] = new Array(pkg.exports.length);
  for (const i of order) {
    offsets[i] = pos;
    pos += data[i]!.length;
  }
  const last = order[order.length - 1];
  const oldEnd = last !== undefined ? pkg.exports[last]!.serialOffset + delta + old[last]!.length : newHeader;
  return { order, offsets, sizeShift: pos - oldEnd };
}

/** Sets each export entry's serial size and offset (and, where tagged, the end of its properties); returns those changed. */
function patchExportEntries(pkg: LegacyPackage, uasset: Uint8Array, head: Uint8Array, delta: number, layout: ExportLayout, old: readonly Uint8Array[], data: readonly Uint8Array[], names: readonly string[]): number[] {
  const s = pkg.summary;
  const hv = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const exportOffset = s.exportOffset + (delta > 0 && s.exportOffset >= nameMapEnd(pkg, uasset) ? delta : 0);
  const big = s.fileVersionUE4 >= 511;
  const fieldAt = 4 * 3 + (s.fileVersionUE4 >= 508 ? 4 : 0) + 8 + 4;
  const changed: number[] = [];
  pkg.exports.forEach((e, i) => {
    const at = exportOffset + i * pkg.layout.exportEntrySize + fieldAt;
    if (big) {
      hv.setBigInt64(at, BigInt(data[i]!.length), true);
      hv.setBigInt64(at + 8, BigInt(layout.offsets[i]!), true);
    } else {
      hv.setInt32(at, data[i]!.length, true);
      hv.setInt32(at + 4, layout.offsets[i]!, true);
    }
    if (pkg.layout.exportHasScriptOffsets && e.scriptSerializationEndOffset !== undefined && data[i] !== old[i]) {
      // 1010+ tagged packages note where the tagged properties end inside the export's data.
      const end = taggedPropertiesEnd(data[i]!, names, s.fileVersionUE5);
      if (end !== undefined) hv.setBigInt64(exportOffset + (i + 1) * pkg.layout.exportEntrySize - 8, BigInt(end), true);
    }
    if (data[i] !== old[i]) changed.push(i);
  });
  return changed;
}

/** The bulk data start (the end of the export data in the combined file) moves with the export sizes. */
function moveBulkDataStart(rec: FieldRecorder, head: Uint8Array, sizeShift: number): void {
  const bulk = rec.fields.find((f) => f.what === 'bulk data start offset');
  if (!bulk || sizeShift === 0) return;
  const hv = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const x = hv.getBigInt64(bulk.at, true);
  if (x > 0n) hv.setBigInt64(bulk.at, x + BigInt(sizeShift), true);
}

/** The new files: the export data rewritten in its file (.uexp, or the .uasset after the header) with what surrounded it. */
function assembleLegacy(pkg: LegacyPackage, uasset: Uint8Array, uexp: Uint8Array | undefined, head: Uint8Array, delta: number, layout: ExportLayout, old: readonly Uint8Array[], data: readonly Uint8Array[]): Pick<AppliedLegacy, 'uasset' | 'uexp'> {
  const header = pkg.summary.totalHeaderSize;
  const { order, sizeShift } = layout;
  const first = order[0];
  const last = order[order.length - 1];
  if (uexp === undefined) {
    const dataStart = first !== undefined ? pkg.exports[first]!.serialOffset : header;
    const lastOld = last !== undefined ? pkg.exports[last]!.serialOffset + old[last]!.length : header;
    const w = new Wr(uasset.length + delta + Math.max(0, sizeShift) + 64);
    w.bytes(head);
    w.bytes(uasset.subarray(header, dataStart));
    for (const i of order) w.bytes(data[i]!);
    w.bytes(uasset.subarray(lastOld));
    return { uasset: w.done(), uexp: undefined };
  }
  const firstOld = first !== undefined ? pkg.exports[first]!.serialOffset - header : 0;
  const lastOld = last !== undefined ? pkg.exports[last]!.serialOffset - header + old[last]!.length : 0;
  const w = new Wr(uexp.length + Math.max(0, sizeShift) + 64);
  w.bytes(uexp.subarray(0, firstOld));
  for (const i of order) w.bytes(data[i]!);
  w.bytes(uexp.subarray(lastOld));
  return { uasset: head, uexp: w.done() };
}

export interface AppliedZen {
  bytes: Uint8Array;
  changed: number[];
  addedNames: string[];
}

/** Writes props JSON into a zen package chunk; returns the new chunk (header updated). */
export function applyZenProps(bytes: Uint8Array, json: PackagePropsJson, o: ReadPropsOptions = {}): AppliedZen {
  const source = o.source ?? 'package';
  const z: ZenPackage = parseZenPackage(bytes, { source, ...(o.engine ? { engine: o.engine } : {}) });
  checkJson(json, z.exports.length, source);
  const P = zenPropsPackage(z, o);
  const S = new Session(P);
  const oldNames = P.names.length;
  const old = zenExportBytes(z, bytes);
  defineLocalStructs(S, old, zenExportInfos(z, P, o));
  const data = newExportData(json, S, old, source);
  const addedNames = P.names.slice(oldNames);
  const offsets = exportChunkOffsets(z);
  const order = z.exports.map((_, i) => i).filter((i) => offsets[i]! >= 0).sort((a, b) => offsets[a]! - offsets[b]!);
  const changed = z.exports.map((_, i) => i).filter((i) => data[i] !== old[i]);
  // New sizes, and serial offsets laid out again in the old order from the first one.
  const byOffset = z.exports.map((_, i) => i).sort((a, b) => z.exports[a]!.cookedSerialOffset - z.exports[b]!.cookedSerialOffset);
  let serial = byOffset.length > 0 ? z.exports[byOffset[0]!]!.cookedSerialOffset : 0;
  for (const i of byOffset) {
    z.exports[i]!.cookedSerialOffset = serial;
    z.exports[i]!.cookedSerialSize = data[i]!.length;
    serial += data[i]!.length;
  }
  if (addedNames.length > 0) {
    z.names = P.names;
    z.nameHashes = z.nameHashes.length === oldNames ? [...z.nameHashes, ...addedNames.map(nameHash)] : z.names.map(nameHash);
  }
  // 5.0-5.2 bundles start at serial offsets of their own: each is where its first export's data now starts.
  const starts = new Map<number, number>();
  let chunkPos = 0;
  for (const i of order) {
    starts.set(i, chunkPos);
    chunkPos += data[i]!.length;
  }
  if (z.layout.format === 'UE5' && z.layout.summarySize !== 52) {
    for (const b of z.exportBundles) {
      const first = z.exportBundleEntries.slice(b.firstEntryIndex, b.firstEntryIndex + b.entryCount).find((e) => e.commandType === 1);
      if (first && b.serialOffset !== undefined) b.serialOffset = BigInt(starts.get(first.localExportIndex) ?? 0);
    }
  }
  const header = serializeZenPackageHeader(z);
  const lastOld = order.length > 0 ? offsets[order[order.length - 1]!]! + old[order[order.length - 1]!]!.length : z.headerSize;
  const w = new Wr(bytes.length + 256);
  w.bytes(header);
  for (const i of order) w.bytes(data[i]!);
  w.bytes(bytes.subarray(lastOld));
  if (z.layout.summarySize === 52) {
    // 5.3+: an export's data is at HeaderSize + CookedSerialOffset; check the new chunk keeps that true.
    const again = parseZenPackage(w.view(), { source });
    const at = exportChunkOffsets(again);
    order.forEach((i) => {
      if (at[i] !== header.length + starts.get(i)!) throw new IoStoreError('USAGE', `export ${i}: rewritten data is not where its serial offset says`, { file: source });
    });
  }
  return { bytes: w.done(), changed, addedNames };
}
