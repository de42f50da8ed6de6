import { CustomVersions, hasCustomVersion } from './context.js';
import { objectNameOf } from './refs.js';
import { hex, hexFieldBytes, PropsReadError, Rd, sameBytes, setHexField, unhex, Wr } from './io.js';
import { isObject, jsonBigInt, jsonInt, PropsWriteError, readName, readStr, writeFail, writeName, writeStr, type Json, type JsonObject, type Session } from './prims.js';
import { newCtx, readStruct, writeStruct, type Ctx, type PropJson } from './values.js';
import { readTaggedProps, writeTaggedProps } from './tagged-props.js';
import { readUnversionedProps, writeUnversionedProps } from './unversioned-props.js';

/** The JSON form of one export's data. */
export interface ExportPropsJson {
  index: number;
  /** The export's object name. */
  name: string;
  /** The class's object path. */
  class: string;
  /** How the data was read: `raw` when it could not be (see `error`), the bytes kept in `tail`. */
  serialization: 'tagged' | 'unversioned' | 'raw';
  /** Tagged objects of UE5 1011+: the serialization-control byte(s), hex. */
  control?: string;
  /** Unversioned: the header, hex, when it is not the one the engine would write for `properties`. */
  header?: string;
  properties?: PropJson[];
  /** After the properties of objects that are not class defaults: the object's GUID, or null when it has none. */
  objectGuid?: string | null;
  /** The data after the properties of DataTable, CurveTable, StringTable and UserDefinedEnum exports. */
  data?: JsonObject;
  /** Bytes the toolkit does not read (native data of meshes, textures...), from `offset` in the export's data. */
  tail?: { offset: number; hex: string };
  /** Why the export could not be read (one line: package, export, property, offset). */
  error?: string;
}

/** What the export reader needs to know about the export besides its bytes. */
export interface ExportInfo {
  index: number;
  name: string;
  /** The class's object path (its object name selects the schema of unversioned data and the class data reader). */
  classPath: string;
  /** RF_ClassDefaultObject: class defaults carry no object GUID. */
  isClassDefault: boolean;
}

const RF_CLASS_DEFAULT_OBJECT = 0x10;
export const isClassDefaultFlags = (objectFlags: number) => (objectFlags & RF_CLASS_DEFAULT_OBJECT) !== 0;

export { objectNameOf };

/**
 * Reads one export's data; never throws on bad data: an export that cannot be read comes back raw with `error`.
 *
 * The JSON must write back to the export's bytes, or the bytes win. A first pass reads every value without checking
 * it and writes the whole export back once: equal bytes prove every value at once (each value's bytes sit between
 * tags whose sizes the writer recomputes, so one byte off anywhere shows). Only an export that fails that proof is
 * read again value by value, each checked on its own, so that what does not write back keeps its bytes (`raw`)
 * while the rest stays typed.
 */
export function readExportProps(data: Uint8Array, S: Session, info: ExportInfo): ExportPropsJson {
  const base: ExportPropsJson = { index: info.index, name: info.name, class: info.classPath, serialization: S.P.unversioned ? 'unversioned' : 'tagged' };
  S.current = `${S.P.source}: export ${info.index} (${info.name})`;
  const notes = S.notes.length;
  let out: ExportPropsJson;
  try {
    out = readTyped(data, S, info, base, false);
  } catch (e) {
    // The structure (tags, headers, sizes) is read the same way in both passes: a second one would fail alike.
    return rawExport(base, data, describeFailure(e, S, info));
  }
  if (writesBack(out, S, data)) return out;
  S.notes.length = notes;
  try {
    out = readTyped(data, S, info, base, true);
  } catch (e) {
    return rawExport(base, data, describeFailure(e, S, info));
  }
  if (writesBack(out, S, data)) return out;
  return rawExport(base, data, `${S.P.source}: export ${info.index} (${info.name}): its properties did not write back to the same bytes; kept as they are`);
}

/** Whether the JSON writes back to `data` (names the trial appended to the name map are taken back). */
function writesBack(out: ExportPropsJson, S: Session, data: Uint8Array): boolean {
  const names = S.P.names.length;
  const w = S.scratch();
  try {
    writeExportInto(w, out, S);
    return sameBytes(w.view(), data);
  } catch {
    return false;
  } finally {
    S.truncateNames(names);
  }
}

function describeFailure(e: unknown, S: Session, info: ExportInfo): string {
  const where = `${S.P.source}: export ${info.index} (${info.name})`;
  if (e instanceof PropsReadError) return `${where} at offset 0x${e.at.toString(16)}: ${e.message}; its bytes are kept as they are`;
  return `${where}: ${(e as Error)?.message ?? String(e)}`;
}

function rawExport(base: ExportPropsJson, data: Uint8Array, error: string): ExportPropsJson {
  return { index: base.index, name: base.name, class: base.class, serialization: 'raw', tail: tailOf(0, data), error };
}

function tailOf(offset: number, bytes: Uint8Array): { offset: number; hex: string } {
  return setHexField({ offset } as { offset: number; hex: string }, 'hex', bytes);
}

function readTyped(data: Uint8Array, S: Session, info: ExportInfo, base: ExportPropsJson, verify: boolean): ExportPropsJson {
  const out: ExportPropsJson = { ...base };
  const rd = new Rd(data);
  const c = newCtx(S, S.P.unversioned ? 'unversioned' : 'tagged', verify);
  if (c.mode === 'tagged') {
    const block = readTaggedProps(rd, c, true);
    if (block.control !== undefined) out.control = block.control;
    out.properties = block.props;
  } else {
    const block = readUnversionedProps(rd, c, objectNameOf(info.classPath));
    if (block.header !== undefined) out.header = block.header;
    out.properties = block.props;
  }
  if (!info.isClassDefault && rd.left >= 4) {
    const flag = rd.v.getUint32(rd.pos, true);
    if (flag === 0) {
      out.objectGuid = null;
      rd.pos += 4;
    } else if (flag === 1 && rd.left >= 20) {
      rd.pos += 4;
      out.objectGuid = hex(rd.bytes(16));
    }
  }
  const reader = CLASS_DATA.get(objectNameOf(info.classPath));
  if (reader && rd.left > 0 && out.objectGuid !== undefined) {
    const start = rd.pos;
    try {
      out.data = reader.read(rd, c, out);
      if (verify) {
        // Class data must write back to its bytes, or it stays in the tail.
        const w = new Wr(rd.pos - start + 16);
        reader.write(w, c, out.data, out);
        if (!sameBytes(w.view(), data.subarray(start, rd.pos))) throw new Error('mismatch');
      }
    } catch {
      delete out.data;
      rd.pos = start;
    }
  }
  if (rd.left > 0) out.tail = tailOf(rd.pos, data.subarray(rd.pos));
  return out;
}

/**
 * Writes an export's JSON back to its data. Throws PropsWriteError on JSON that does not fit its types. `sizeHint`
 * (the export's old size) sizes the buffer so that it seldom grows.
 */
export function writeExportProps(e: ExportPropsJson, S: Session, sizeHint = 4096): Uint8Array {
  const w = new Wr(Math.max(64, Math.min(sizeHint + 64, 64 << 20)));
  writeExportInto(w, e, S);
  return w.done();
}

function writeExportInto(w: Wr, e: ExportPropsJson, S: Session): void {
  if (e.serialization === 'raw') {
    if (!e.tail) throw new PropsWriteError(`export ${e.index} is raw but has no tail`);
    w.bytes(hexFieldBytes(e.tail, 'hex', 'tail'));
    return;
  }
  const c = newCtx(S, e.serialization, false);
  if (c.mode !== (S.P.unversioned ? 'unversioned' : 'tagged')) throw new PropsWriteError(`export ${e.index} is ${e.serialization} but the package is not`);
  const props = Array.isArray(e.properties) ? e.properties : writeFail(`export ${e.index} properties`, e.properties as unknown as Json);
  if (c.mode === 'tagged') writeTaggedProps(w, c, props, true, e.control);
  else writeUnversionedProps(w, c, objectNameOf(e.class), props, e.header);
  if (e.objectGuid === null) w.u32(0);
  else if (typeof e.objectGuid === 'string') {
    w.u32(1);
    w.bytes(unhex(e.objectGuid, 'object GUID'));
  }
  if (e.data !== undefined) {
    const reader = CLASS_DATA.get(objectNameOf(e.class));
    if (!reader) throw new PropsWriteError(`export ${e.index}: class ${e.class} has no class data`);
    reader.write(w, c, e.data, e);
  }
  if (e.tail) w.bytes(hexFieldBytes(e.tail, 'hex', 'tail'));
}

// ---------------------------------------------------------------------------------------------------------------
// The data after the properties of common classes.

interface ClassData {
  read(rd: Rd, c: Ctx, e: ExportPropsJson): JsonObject;
  write(w: Wr, c: Ctx, v: JsonObject, e: ExportPropsJson): void;
}

/** The object name of the struct a property of the export names (DataTable's RowStruct). */
function structOfProperty(e: ExportPropsJson, name: string): string | undefined {
  const p = e.properties?.find((q) => q.name === name);
  return typeof p?.value === 'string' && p.value !== '' ? objectNameOf(p.value) : undefined;
}

function readRows(rd: Rd, c: Ctx, struct: string | undefined): Json[] {
  const n = rd.count('row count', 8);
  const rows: Json[] = [];
  for (let i = 0; i < n; i++) {
    const name = readName(rd, c.S, 'row name');
    rows.push({ name, value: readStruct(rd, c, struct) });
  }
  return rows;
}

function writeRows(w: Wr, c: Ctx, struct: string | undefined, rows: Json | undefined): void {
  if (!Array.isArray(rows)) return writeFail('rows are not an array', rows);
  w.i32(rows.length);
  for (const r of rows) {
    if (!isObject(r)) return writeFail('row is not an object', r);
    writeName(w, c.S, r.name, 'row name');
    writeStruct(w, c, struct, r.value);
  }
}

const dataTable: ClassData = {
  read: (rd, c, e) => ({ kind: 'DataTable', rows: readRows(rd, c, structOfProperty(e, 'RowStruct')) }),
  write: (w, c, v, e) => writeRows(w, c, structOfProperty(e, 'RowStruct'), v.rows),
};

const CURVE_MODES = ['Empty', 'SimpleCurves', 'RichCurves'];
const curveTable: ClassData = {
  read(rd, c) {
    const n = rd.count('row count', 8);
    const hasMode = hasCustomVersion(c.S.P, CustomVersions.FortniteMain, 23);
    const mode = hasMode ? rd.u8('curve table mode') : n > 0 ? 2 : 0;
    const struct = mode === 1 ? 'SimpleCurve' : 'RichCurve';
    const rows: Json[] = [];
    for (let i = 0; i < n; i++) rows.push({ name: readName(rd, c.S, 'row name'), value: readStruct(rd, c, struct) });
    const o: JsonObject = { kind: 'CurveTable', rows };
    if (hasMode) o.mode = CURVE_MODES[mode] ?? mode;
    return o;
  },
  write(w, c, v) {
    const rows = Array.isArray(v.rows) ? v.rows : writeFail('rows are not an array', v.rows);
    w.i32(rows.length);
    const hasMode = hasCustomVersion(c.S.P, CustomVersions.FortniteMain, 23);
    const mode = typeof v.mode === 'string' ? CURVE_MODES.indexOf(v.mode) : typeof v.mode === 'number' ? v.mode : rows.length > 0 ? 2 : 0;
    if (hasMode) w.u8(mode);
    const struct = mode === 1 ? 'SimpleCurve' : 'RichCurve';
    for (const r of rows) {
      if (!isObject(r)) return writeFail('row is not an object', r);
      writeName(w, c.S, r.name, 'row name');
      writeStruct(w, c, struct, r.value);
    }
  },
};

const stringTable: ClassData = {
  read(rd, c) {
    const namespace = readStr(rd, 'string table namespace');
    const n = rd.count('string table entry count', 8);
    const entries: Json[] = [];
    for (let i = 0; i < n; i++) entries.push([readStr(rd, 'string table key'), readStr(rd, 'string table entry')]);
    const m = rd.count('string table metadata count', 8);
    const metadata: Json[] = [];
    for (let i = 0; i < m; i++) {
      const key = readStr(rd, 'metadata key');
      const k = rd.count('metadata entry count', 12);
      const fields: Json[] = [];
      for (let j = 0; j < k; j++) fields.push([readName(rd, c.S, 'metadata id'), readStr(rd, 'metadata value')]);
      metadata.push([key, fields]);
    }
    return { kind: 'StringTable', namespace, entries, metadata };
  },
  write(w, c, v) {
    writeStr(w, v.namespace, 'string table namespace');
    const entries = Array.isArray(v.entries) ? v.entries : writeFail('string table entries are not an array', v.entries);
    w.i32(entries.length);
    for (const e of entries) {
      if (!Array.isArray(e)) return writeFail('string table entry is not a [key, text] pair', e);
      writeStr(w, e[0], 'string table key');
      writeStr(w, e[1], 'string table entry');
    }
    const metadata = Array.isArray(v.metadata) ? v.metadata : [];
    w.i32(metadata.length);
    for (const m of metadata) {
      if (!Array.isArray(m) || !Array.isArray(m[1])) return writeFail('string table metadata is not a [key, [[id, value]...]] pair', m);
      writeStr(w, m[0], 'metadata key');
      w.i32(m[1].length);
      for (const f of m[1]) {
        if (!Array.isArray(f)) return writeFail('metadata field is not an [id, value] pair', f);
        writeName(w, c.S, f[0], 'metadata id');
        writeStr(w, f[1], 'metadata value');
      }
    }
  },
};

const userDefinedEnum: ClassData = {
  read(rd, c) {
    const n = rd.count('enum name count', 16);
    const names: Json[] = [];
    for (let i = 0; i < n; i++) names.push([readName(rd, c.S, 'enum name'), rd.i64('enum value').toString()]);
    const o: JsonObject = { kind: 'Enum', names, cppForm: rd.u8('enum form') };
    // Fortnite main 255 (UE 5.5) adds the underlying type; unversioned packages show it by the byte left.
    if (hasCustomVersion(c.S.P, CustomVersions.FortniteMain, 255, rd.left === 1)) o.underlyingType = rd.u8('enum underlying type');
    return o;
  },
  write(w, c, v) {
    const names = Array.isArray(v.names) ? v.names : writeFail('enum names are not an array', v.names);
    w.i32(names.length);
    for (const e of names) {
      if (!Array.isArray(e)) return writeFail('enum name is not a [name, value] pair', e);
      writeName(w, c.S, e[0], 'enum name');
      w.i64(jsonBigInt(e[1], 'enum value'));
    }
    w.u8(jsonInt(v.cppForm, 'cppForm', 0, 255));
    if (v.underlyingType !== undefined) w.u8(jsonInt(v.underlyingType, 'underlyingType', 0, 255));
  },
};

const CLASS_DATA = new Map<string, ClassData>([
  ['DataTable', dataTable],
  ['CompositeDataTable', dataTable],
  ['CurveTable', curveTable],
  ['CompositeCurveTable', curveTable],
  ['StringTable', stringTable],
  ['UserDefinedEnum', userDefinedEnum],
]);
