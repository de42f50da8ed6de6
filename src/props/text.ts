import { CustomVersions, hasCustomVersion } from './context.js';
import { hex, PropsReadError, unhex, type Rd, type Wr } from './io.js';
import {
  isObject,
  jsonBigInt,
  jsonBool,
  jsonInt,
  readBool32,
  readF32,
  readF64,
  readName,
  readStr,
  writeF32,
  writeF64,
  writeFail,
  writeName,
  writeStr,
  type Json,
  type JsonObject,
  type Session,
} from './prims.js';

/**
 * FText with its history: how the text was made (a literal with namespace and key, a format with arguments, a
 * number or date formatted for a culture, a string-table entry...). Every kind the engine saves reads to JSON and
 * writes back.
 */
export const TEXT_HISTORY = [
  'Base', 'NamedFormat', 'OrderedFormat', 'ArgumentFormat', 'AsNumber', 'AsPercent', 'AsCurrency', 'AsDate', 'AsTime',
  'AsDateTime', 'Transform', 'StringTableEntry', 'TextGenerator',
] as const;

const DATE_STYLES = ['Default', 'Short', 'Medium', 'Long', 'Full'];
const ARGUMENT_TYPES = ['Int', 'UInt', 'Float', 'Double', 'Text', 'Gender'];

const cultureInvariant = (S: Session) => hasCustomVersion(S.P, CustomVersions.Editor, 32);
const alwaysSign = (S: Session) => hasCustomVersion(S.P, CustomVersions.Editor, 21);
const devNotes = (S: Session) => !S.P.cooked && hasCustomVersion(S.P, CustomVersions.FortniteMain, 260, false);
const argument64 = (S: Session) => hasCustomVersion(S.P, CustomVersions.UE5ReleaseStream, 12, S.ue5 > 0);

function styleJson(x: number): Json {
  return DATE_STYLES[x] ?? x;
}
function jsonStyle(v: Json | undefined, what: string): number {
  const i = typeof v === 'string' ? DATE_STYLES.indexOf(v) : -1;
  return i >= 0 ? i : jsonInt(v, what, -128, 127);
}

export function readText(rd: Rd, S: Session, depth = 0): JsonObject {
  if (depth > 32) throw new PropsReadError('text nests more than 32 levels', rd.pos);
  const flags = rd.u32('text flags');
  const at = rd.pos;
  const kind = rd.i8('text history type');
  const o: JsonObject = { flags };
  if (kind === -1) {
    o.history = 'None';
    if (cultureInvariant(S)) {
      const has = readBool32(rd, 'text has culture-invariant string');
      if (has) o.string = readStr(rd, 'text string');
    }
    return o;
  }
  const name = TEXT_HISTORY[kind];
  if (name === undefined) throw new PropsReadError(`text history type ${kind} is unknown`, at);
  o.history = name;
  switch (name) {
    case 'Base':
      o.namespace = readStr(rd, 'text namespace');
      o.key = readStr(rd, 'text key');
      o.source = readStr(rd, 'text source string');
      if (devNotes(S)) o.devNotes = readStr(rd, 'text dev notes');
      break;
    case 'NamedFormat':
    case 'OrderedFormat':
    case 'ArgumentFormat': {
      o.format = readText(rd, S, depth + 1);
      const n = rd.count('format argument count', 2);
      const args: Json[] = [];
      for (let i = 0; i < n; i++) {
        if (name === 'OrderedFormat') args.push(readArgument(rd, S, false, depth));
        else args.push({ name: readStr(rd, 'format argument name'), ...readArgument(rd, S, name === 'ArgumentFormat', depth) });
      }
      o.arguments = args;
      break;
    }
    case 'AsNumber':
    case 'AsPercent':
    case 'AsCurrency':
      if (name === 'AsCurrency') o.currency = readStr(rd, 'currency code');
      o.value = readArgument(rd, S, false, depth);
      if (readBool32(rd, 'has format options')) {
        const f: JsonObject = {};
        if (alwaysSign(S)) f.alwaysSign = readBool32(rd, 'always sign');
        f.useGrouping = readBool32(rd, 'use grouping');
        f.roundingMode = rd.i8('rounding mode');
        f.minimumIntegralDigits = rd.i32('digits');
        f.maximumIntegralDigits = rd.i32('digits');
        f.minimumFractionalDigits = rd.i32('digits');
        f.maximumFractionalDigits = rd.i32('digits');
        o.options = f;
      }
      o.culture = readStr(rd, 'target culture');
      break;
    case 'AsDate':
    case 'AsTime':
    case 'AsDateTime':
      o.ticks = rd.i64('date ticks').toString();
      if (name !== 'AsTime') o.dateStyle = styleJson(rd.i8('date style'));
      if (name !== 'AsDate') o.timeStyle = styleJson(rd.i8('time style'));
      o.timeZone = readStr(rd, 'time zone');
      o.culture = readStr(rd, 'target culture');
      break;
    case 'Transform': {
      o.source = readText(rd, S, depth + 1);
      const t = rd.u8('transform type');
      o.transform = t === 0 ? 'ToLower' : t === 1 ? 'ToUpper' : t;
      break;
    }
    case 'StringTableEntry':
      o.table = readName(rd, S, 'string table id');
      o.key = readStr(rd, 'string table key');
      break;
    case 'TextGenerator': {
      const id = readName(rd, S, 'text generator type');
      o.generator = id;
      if (id !== 'None') {
        const n = rd.count('text generator contents');
        o.contents = hex(rd.bytes(n, 'text generator contents'));
      }
      break;
    }
  }
  return o;
}

function readArgument(rd: Rd, S: Session, argumentData: boolean, depth: number): JsonObject {
  const at = rd.pos;
  const t = rd.i8('format argument type');
  const type = ARGUMENT_TYPES[t];
  switch (type) {
    case 'Int':
      return argumentData && !argument64(S) ? { type, int32: rd.i32('argument') } : { type, value: rd.i64('argument').toString() };
    case 'UInt':
      return { type, value: rd.u64('argument').toString() };
    case 'Float':
      return { type, value: readF32(rd, 'argument') };
    case 'Double':
      return { type, value: readF64(rd, 'argument') };
    case 'Text':
      return { type, value: readText(rd, S, depth + 1) };
    case 'Gender':
      return { type, value: rd.u8('argument') };
  }
  throw new PropsReadError(`format argument type ${t} is unknown`, at);
}

function writeArgument(w: Wr, S: Session, v: Json | undefined, argumentData: boolean): void {
  if (!isObject(v)) return writeFail('format argument is not an object', v);
  const t = ARGUMENT_TYPES.indexOf(String(v.type));
  if (t < 0) return writeFail('format argument type', v.type);
  w.u8(t);
  switch (v.type) {
    case 'Int':
      if (argumentData && !argument64(S)) w.i32(jsonInt(v.int32 ?? v.value, 'int argument', -0x80000000, 0x7fffffff));
      else w.i64(jsonBigInt(v.value, 'int argument'));
      return;
    case 'UInt':
      return w.u64(jsonBigInt(v.value, 'uint argument'));
    case 'Float':
      return writeF32(w, v.value, 'float argument');
    case 'Double':
      return writeF64(w, v.value, 'double argument');
    case 'Text':
      return writeText(w, S, v.value);
    case 'Gender':
      return w.u8(jsonInt(v.value, 'gender argument', 0, 255));
  }
}

export function writeText(w: Wr, S: Session, v: Json | undefined): void {
  if (!isObject(v)) return writeFail('text is not an object', v);
  w.u32(jsonInt(v.flags ?? 0, 'text flags', 0, 0xffffffff));
  if (v.history === 'None') {
    w.u8(0xff);
    if (cultureInvariant(S)) {
      w.u32(v.string === undefined ? 0 : 1);
      if (v.string !== undefined) writeStr(w, v.string, 'text string');
    }
    return;
  }
  const kind = TEXT_HISTORY.indexOf(v.history as (typeof TEXT_HISTORY)[number]);
  if (kind < 0) return writeFail('text history', v.history);
  w.u8(kind);
  switch (v.history) {
    case 'Base':
      writeStr(w, v.namespace ?? '', 'text namespace');
      writeStr(w, v.key ?? '', 'text key');
      writeStr(w, v.source ?? '', 'text source string');
      if (devNotes(S)) writeStr(w, v.devNotes ?? '', 'text dev notes');
      return;
    case 'NamedFormat':
    case 'OrderedFormat':
    case 'ArgumentFormat': {
      writeText(w, S, v.format);
      const args = Array.isArray(v.arguments) ? v.arguments : writeFail('format arguments are not an array', v.arguments);
      w.i32(args.length);
      for (const a of args) {
        if (v.history !== 'OrderedFormat') writeStr(w, isObject(a) ? a.name : undefined, 'format argument name');
        writeArgument(w, S, a, v.history === 'ArgumentFormat');
      }
      return;
    }
    case 'AsNumber':
    case 'AsPercent':
    case 'AsCurrency': {
      if (v.history === 'AsCurrency') writeStr(w, v.currency ?? '', 'currency code');
      writeArgument(w, S, v.value, false);
      const f = v.options;
      w.u32(isObject(f) ? 1 : 0);
      if (isObject(f)) {
        if (alwaysSign(S)) w.u32(jsonBool(f.alwaysSign ?? false, 'alwaysSign') ? 1 : 0);
        w.u32(jsonBool(f.useGrouping, 'useGrouping') ? 1 : 0);
        w.u8(jsonInt(f.roundingMode, 'roundingMode', -128, 127));
        for (const k of ['minimumIntegralDigits', 'maximumIntegralDigits', 'minimumFractionalDigits', 'maximumFractionalDigits']) {
          w.i32(jsonInt(f[k], k, -0x80000000, 0x7fffffff));
        }
      }
      writeStr(w, v.culture ?? '', 'target culture');
      return;
    }
    case 'AsDate':
    case 'AsTime':
    case 'AsDateTime':
      w.i64(jsonBigInt(v.ticks, 'date ticks'));
      if (v.history !== 'AsTime') w.u8(jsonStyle(v.dateStyle, 'dateStyle'));
      if (v.history !== 'AsDate') w.u8(jsonStyle(v.timeStyle, 'timeStyle'));
      writeStr(w, v.timeZone ?? '', 'time zone');
      writeStr(w, v.culture ?? '', 'target culture');
      return;
    case 'Transform':
      writeText(w, S, v.source);
      w.u8(v.transform === 'ToLower' ? 0 : v.transform === 'ToUpper' ? 1 : jsonInt(v.transform, 'transform', 0, 255));
      return;
    case 'StringTableEntry':
      writeName(w, S, v.table, 'string table id');
      writeStr(w, v.key ?? '', 'string table key');
      return;
    case 'TextGenerator': {
      writeName(w, S, v.generator ?? 'None', 'text generator type');
      if (v.generator !== 'None' && v.generator !== undefined) {
        const b = unhex(typeof v.contents === 'string' ? v.contents : '', 'text generator contents');
        w.i32(b.length);
        w.bytes(b);
      }
      return;
    }
  }
}

/** The shown string of a text, for people (the format or source it was made from). */
export function textDisplay(v: Json | undefined): string {
  if (!isObject(v)) return '';
  const s = v.source ?? v.string ?? v.key;
  if (typeof s === 'string') return s;
  if (isObject(v.format)) return textDisplay(v.format);
  if (isObject(s)) return textDisplay(s);
  return '';
}
