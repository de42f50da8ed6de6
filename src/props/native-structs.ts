import { customVersionKey, CustomVersions, hasCustomVersion } from './context.js';
import { hex, PropsReadError, unhex, type Rd, type Wr } from './io.js';
import {
  isObject,
  jsonBigInt,
  jsonInt,
  readBool32,
  readF32,
  readF64,
  readGuid,
  readName,
  readReal,
  readSoftPath,
  writeF32,
  writeF64,
  writeFail,
  writeGuid,
  writeName,
  writeReal,
  writeSoftPath,
  type Json,
  type JsonObject,
  type Session,
} from './prims.js';

/**
 * Structs the engine serializes with their own code instead of as properties (in tagged and unversioned data
 * alike): math types, colours, GUIDs, date/time, soft object paths, gameplay tag containers, curve keys... Each is
 * a JSON object of its members (GUIDs, ticks and soft paths a string). A struct not listed here is read as
 * properties; in tagged data one the engine wrote natively keeps its bytes.
 */
export interface NativeStruct {
  /** `c` is the reading context, for a struct inside that is serialized as properties (see `nested`). */
  read(rd: Rd, S: Session, c?: unknown): Json;
  write(w: Wr, S: Session, v: Json | undefined, c?: unknown): void;
  zero(S: Session): Json;
}

type Scalar = 'u8' | 'i32' | 'u32' | 'i64' | 'u64' | 'f32' | 'f64' | 'real';
type Kind = Scalar | readonly Field[];
type Field = readonly [string, Kind];

/** A member as read and written: its key, its kind, and its label in messages (made once, not per value). */
interface Member {
  key: string;
  kind: Scalar | readonly Member[];
  what: string;
}

function members(what: string, f: readonly Field[]): Member[] {
  return f.map(([key, kind]) => ({ key, what: `${what}.${key}`, kind: typeof kind === 'string' ? kind : members(`${what}.${key}`, kind) }));
}

function readMembers(rd: Rd, S: Session, ms: readonly Member[]): JsonObject {
  const o: JsonObject = {};
  for (const m of ms) o[m.key] = typeof m.kind === 'string' ? readKind(rd, S, m.kind, m.what) : readMembers(rd, S, m.kind);
  return o;
}

function writeMembers(w: Wr, S: Session, ms: readonly Member[], v: Json | undefined, what: string): void {
  if (!isObject(v)) return writeFail(`${what} is not an object`, v);
  for (const m of ms) {
    if (typeof m.kind === 'string') writeKind(w, S, m.kind, v[m.key], m.what);
    else writeMembers(w, S, m.kind, v[m.key], m.what);
  }
}

function readKind(rd: Rd, S: Session, k: Kind, what: string): Json {
  switch (k) {
    case 'u8':
      return rd.u8(what);
    case 'i32':
      return rd.i32(what);
    case 'u32':
      return rd.u32(what);
    case 'i64':
      return rd.i64(what).toString();
    case 'u64':
      return rd.u64(what).toString();
    case 'f32':
      return readF32(rd, what);
    case 'f64':
      return readF64(rd, what);
    case 'real':
      return readReal(rd, S, what);
  }
  const o: JsonObject = {};
  for (const [key, kind] of k) o[key] = readKind(rd, S, kind, `${what}.${key}`);
  return o;
}

function writeKind(w: Wr, S: Session, k: Kind, v: Json | undefined, what: string): void {
  switch (k) {
    case 'u8':
      return w.u8(jsonInt(v, what, 0, 255));
    case 'i32':
      return w.i32(jsonInt(v, what, -0x80000000, 0x7fffffff));
    case 'u32':
      return w.u32(jsonInt(v, what, 0, 0xffffffff));
    case 'i64':
      return w.i64(jsonBigInt(v, what));
    case 'u64':
      return w.u64(jsonBigInt(v, what));
    case 'f32':
      return writeF32(w, v, what);
    case 'f64':
      return writeF64(w, v, what);
    case 'real':
      return writeReal(w, S, v, what);
  }
  if (!isObject(v)) return writeFail(`${what} is not an object`, v);
  for (const [key, kind] of k) writeKind(w, S, kind, v[key], `${what}.${key}`);
}

function zeroKind(k: Kind): Json {
  if (typeof k === 'string') return k === 'i64' || k === 'u64' ? '0' : 0;
  const o: JsonObject = {};
  for (const [key, kind] of k) o[key] = zeroKind(kind);
  return o;
}

function fields(name: string, f: readonly Field[]): NativeStruct {
  const ms = members(name, f);
  return {
    read: (rd, S) => readMembers(rd, S, ms),
    write: (w, S, v) => writeMembers(w, S, ms, v, name),
    zero: () => zeroKind(f),
  };
}

const xyz = (k: Kind): Field[] => [['X', k], ['Y', k], ['Z', k]];
const xy = (k: Kind): Field[] => [['X', k], ['Y', k]];
const xyzw = (k: Kind): Field[] => [['X', k], ['Y', k], ['Z', k], ['W', k]];
const rot = (k: Kind): Field[] => [['Pitch', k], ['Yaw', k], ['Roll', k]];
const box = (v: Field[], valid: string): Field[] => [['Min', v], ['Max', v], [valid, 'u8']];

const ticks: NativeStruct = {
  read: (rd) => rd.i64('ticks').toString(),
  write: (w, _S, v) => w.i64(jsonBigInt(v, 'ticks')),
  zero: () => '0',
};

const guid: NativeStruct = {
  read: (rd) => readGuid(rd),
  write: (w, _S, v) => writeGuid(w, v),
  zero: () => '00000000000000000000000000000000',
};

const softPath: NativeStruct = {
  read: (rd, S) => readSoftPath(rd, S),
  write: (w, S, v) => writeSoftPath(w, S, v),
  zero: () => '',
};

const tagContainer: NativeStruct = {
  read(rd, S) {
    const n = rd.count('gameplay tag count', 8);
    const out: Json[] = [];
    for (let i = 0; i < n; i++) out.push(readName(rd, S, 'gameplay tag'));
    return out;
  },
  write(w, S, v) {
    if (!Array.isArray(v)) return writeFail('gameplay tag container is not an array', v);
    w.i32(v.length);
    for (const t of v) writeName(w, S, t, 'gameplay tag');
  },
  zero: () => [],
};

/** FPerPlatform*: a cooked flag, the default, and (when not cooked) a value per platform. */
function perPlatform(k: 'f32' | 'i32' | 'bool'): NativeStruct {
  const readV = (rd: Rd, S: Session): Json => (k === 'bool' ? readBool32(rd, 'value') : readKind(rd, S, k, 'value'));
  const writeV = (w: Wr, S: Session, v: Json | undefined) => (k === 'bool' ? w.u32(v === true ? 1 : 0) : writeKind(w, S, k, v, 'value'));
  const hasMap = (S: Session, cooked: boolean) => !cooked && (S.ue5 >= 1018 || S.P.cooked);
  return {
    read(rd, S) {
      const cooked = readBool32(rd, 'cooked flag');
      const o: JsonObject = { Cooked: cooked, Default: readV(rd, S) };
      if (hasMap(S, cooked)) {
        const n = rd.count('per-platform values', 9);
        const m: Json[] = [];
        for (let i = 0; i < n; i++) m.push([readName(rd, S, 'platform'), readV(rd, S)]);
        o.PerPlatform = m;
      }
      return o;
    },
    write(w, S, v) {
      if (!isObject(v)) return writeFail('per-platform value is not an object', v);
      const cooked = v.Cooked === true;
      w.u32(cooked ? 1 : 0);
      writeV(w, S, v.Default);
      if (hasMap(S, cooked)) {
        const m = Array.isArray(v.PerPlatform) ? v.PerPlatform : [];
        w.i32(m.length);
        for (const e of m) {
          if (!Array.isArray(e)) return writeFail('per-platform entry is not a [platform, value] pair', e);
          writeName(w, S, e[0], 'platform');
          writeV(w, S, e[1]);
        }
      }
    },
    zero(S) {
      const o: JsonObject = { Cooked: false, Default: k === 'bool' ? false : 0 };
      if (hasMap(S, false)) o.PerPlatform = [];
      return o;
    },
  };
}

const netId: NativeStruct = {
  read(rd, S) {
    const at = rd.pos;
    const size = rd.i32('net id size');
    if (size <= 0) return size === 0 ? null : (() => { throw new PropsReadError(`net id size ${size} is negative`, at); })();
    return { Type: readName(rd, S, 'net id type'), Contents: readStrSimple(rd) };
  },
  write(w, S, v) {
    if (v === null) return w.i32(0);
    if (!isObject(v)) return writeFail('net id is not an object', v);
    const slot = w.slot();
    const start = w.len;
    writeName(w, S, v.Type, 'net id type');
    w.fstring(typeof v.Contents === 'string' ? v.Contents : '');
    w.patchI32(slot, w.len - start);
  },
  zero: () => null,
};

function readStrSimple(rd: Rd): string {
  return rd.fstring('net id contents').text;
}

/** Bytes the engine leaves as padding inside a bulk-serialized element: zero, or the value keeps its bytes. */
function zeroPadding(rd: Rd, n: number, what: string): void {
  const at = rd.pos;
  const b = rd.bytes(n, what);
  for (let i = 0; i < n; i++) if (b[i] !== 0) throw new PropsReadError(`${what} holds non-zero padding`, at);
}

/** FFortniteMainBranchObjectVersion::SerializeFloatChannelShowCurve: channels end with bShowCurve. */
const SerializeFloatChannelShowCurve = 53;

/**
 * FMovieSceneFloatChannel / FMovieSceneDoubleChannel: extrapolation, key times and key values as bulk arrays (each
 * with its element size), the default value, the tick resolution, and (since a Fortnite-branch version) bShowCurve.
 * A key value is the value, its tangents (arrive, leave, their weights, the weight mode), interp and tangent modes.
 */
function movieSceneChannel(valueKind: 'f32' | 'f64'): NativeStruct {
  const valueSize = valueKind === 'f32' ? 4 : 8;
  const elementSize = valueSize + 24;
  const readV = (rd: Rd, what: string) => (valueKind === 'f32' ? readF32(rd, what) : readF64(rd, what));
  const writeV = (w: Wr, v: Json | undefined, what: string) => (valueKind === 'f32' ? writeF32(w, v, what) : writeF64(w, v, what));
  const showCurve = (S: Session) => hasCustomVersion(S.P, CustomVersions.FortniteMain, SerializeFloatChannelShowCurve);
  const bulkSize = (rd: Rd, expected: number, what: string) => {
    const at = rd.pos;
    const size = rd.i32(`${what} element size`);
    if (size !== expected) throw new PropsReadError(`${what} element size ${size} is not ${expected}`, at);
  };
  return {
    read(rd, S) {
      const o: JsonObject = { PreInfinityExtrap: rd.u8('pre-infinity extrapolation'), PostInfinityExtrap: rd.u8('post-infinity extrapolation') };
      bulkSize(rd, 4, 'key times');
      const nt = rd.count('key time count', 4);
      const times: Json[] = [];
      for (let i = 0; i < nt; i++) times.push(rd.i32('key time'));
      o.Times = times;
      bulkSize(rd, elementSize, 'key values');
      const nv = rd.count('key value count', elementSize);
      const values: Json[] = [];
      for (let i = 0; i < nv; i++) {
        const v: JsonObject = { Value: readV(rd, 'key value') };
        v.ArriveTangent = readF32(rd, 'arrive tangent');
        v.LeaveTangent = readF32(rd, 'leave tangent');
        v.ArriveTangentWeight = readF32(rd, 'arrive tangent weight');
        v.LeaveTangentWeight = readF32(rd, 'leave tangent weight');
        v.TangentWeightMode = rd.u8('tangent weight mode');
        zeroPadding(rd, 3, 'key tangent');
        v.InterpMode = rd.u8('interp mode');
        v.TangentMode = rd.u8('tangent mode');
        zeroPadding(rd, elementSize - valueSize - 22, 'key value');
        values.push(v);
      }
      o.Values = values;
      o.DefaultValue = readV(rd, 'default value');
      o.bHasDefaultValue = readBool32(rd, 'has default value');
      o.TickResolution = { Numerator: rd.i32('tick resolution'), Denominator: rd.i32('tick resolution') };
      if (showCurve(S)) o.bShowCurve = readBool32(rd, 'show curve');
      return o;
    },
    write(w, S, v) {
      if (!isObject(v)) return writeFail('channel is not an object', v);
      w.u8(jsonInt(v.PreInfinityExtrap, 'channel.PreInfinityExtrap', 0, 255));
      w.u8(jsonInt(v.PostInfinityExtrap, 'channel.PostInfinityExtrap', 0, 255));
      const times = Array.isArray(v.Times) ? v.Times : writeFail('channel.Times is not an array', v.Times);
      w.i32(4);
      w.i32(times.length);
      for (const t of times) w.i32(jsonInt(t, 'channel.Times[]', -0x80000000, 0x7fffffff));
      const values = Array.isArray(v.Values) ? v.Values : writeFail('channel.Values is not an array', v.Values);
      w.i32(elementSize);
      w.i32(values.length);
      for (const k of values) {
        if (!isObject(k)) return writeFail('channel.Values[] is not an object', k);
        writeV(w, k.Value, 'channel.Values[].Value');
        writeF32(w, k.ArriveTangent, 'channel.Values[].ArriveTangent');
        writeF32(w, k.LeaveTangent, 'channel.Values[].LeaveTangent');
        writeF32(w, k.ArriveTangentWeight, 'channel.Values[].ArriveTangentWeight');
        writeF32(w, k.LeaveTangentWeight, 'channel.Values[].LeaveTangentWeight');
        w.u8(jsonInt(k.TangentWeightMode, 'channel.Values[].TangentWeightMode', 0, 255));
        w.bytes(new Uint8Array(3));
        w.u8(jsonInt(k.InterpMode, 'channel.Values[].InterpMode', 0, 255));
        w.u8(jsonInt(k.TangentMode, 'channel.Values[].TangentMode', 0, 255));
        w.bytes(new Uint8Array(elementSize - valueSize - 22));
      }
      writeV(w, v.DefaultValue, 'channel.DefaultValue');
      w.u32(v.bHasDefaultValue === true ? 1 : 0);
      const r = isObject(v.TickResolution) ? v.TickResolution : writeFail('channel.TickResolution is not an object', v.TickResolution);
      w.i32(jsonInt(r.Numerator, 'channel.TickResolution.Numerator', -0x80000000, 0x7fffffff));
      w.i32(jsonInt(r.Denominator, 'channel.TickResolution.Denominator', -0x80000000, 0x7fffffff));
      if (showCurve(S)) w.u32(v.bShowCurve === true ? 1 : 0);
    },
    zero(S) {
      const o: JsonObject = { PreInfinityExtrap: 0, PostInfinityExtrap: 0, Times: [], Values: [], DefaultValue: 0, bHasDefaultValue: false, TickResolution: { Numerator: 0, Denominator: 0 } };
      if (showCurve(S)) o.bShowCurve = false;
      return o;
    },
  };
}

/**
 * FMovieSceneTimeWarpVariant (UE 5.5+): a literal flag, then 8 bytes: the play rate (a double) when literal, else a
 * packed payload whose kind is in its top bits (kept as hex).
 */
const timeWarpVariant: NativeStruct = {
  read(rd): Json {
    const literal = readBool32(rd, 'time warp literal flag');
    if (literal) return { PlayRate: readF64(rd, 'play rate') };
    return { Payload: hex(rd.bytes(8, 'time warp payload')) };
  },
  write(w, _S, v) {
    if (!isObject(v)) return writeFail('time warp is not an object', v);
    if (v.PlayRate !== undefined) {
      w.u32(1);
      return writeF64(w, v.PlayRate, 'time warp.PlayRate');
    }
    const b = typeof v.Payload === 'string' ? unhex(v.Payload, 'time warp payload') : writeFail('time warp has neither PlayRate nor Payload', v);
    if (b.length !== 8) return writeFail('time warp payload is not 8 bytes', v.Payload);
    w.u32(0);
    w.bytes(b);
  },
  zero: () => ({ PlayRate: 1 }),
};

/**
 * Structs read as properties inside a native struct: values.ts hands its readers over (it imports this module, so
 * this one cannot import it).
 */
let nestedRead: (rd: Rd, c: unknown, name: string) => Json = () => {
  throw new Error('nested structs are not wired');
};
let nestedWrite: (w: Wr, c: unknown, name: string, v: Json | undefined) => void = () => {
  throw new Error('nested structs are not wired');
};
export function setNestedStructs(read: typeof nestedRead, write: typeof nestedWrite): void {
  nestedRead = read;
  nestedWrite = write;
}

/** FNiagaraCustomVersion: a variable stores its name and its type definition (as properties) natively. */
const NiagaraCustomVersion = customVersionKey(0xfcf57afa, 0x50764283, 0xb9a9e658, 0xffa02d32);
const VariablesUseTypeDefRegistry = 64;

/**
 * FNiagaraVariableBase: its name, then its type definition (NiagaraTypeDefinition, as properties); FNiagaraVariable
 * adds its value bytes (VarData), FNiagaraVariableWithOffset its offset in the parameter store. Before the type-definition registry the variable was plain properties.
 */
function niagaraVariable(extra: 'none' | 'data' | 'offset'): NativeStruct {
  const native = (S: Session) => hasCustomVersion(S.P, NiagaraCustomVersion, VariablesUseTypeDefRegistry);
  return {
    read(rd, S, c) {
      if (!native(S)) throw new PropsReadError('a Niagara variable of this release is serialized as properties', rd.pos);
      const o: JsonObject = { Name: readName(rd, S, 'variable name'), TypeDef: nestedRead(rd, c, 'NiagaraTypeDefinition') };
      if (extra === 'data') {
        const n = rd.count('variable data size');
        o.VarData = hex(rd.bytes(n, 'variable data'));
      } else if (extra === 'offset') o.Offset = rd.i32('variable offset');
      return o;
    },
    write(w, S, v, c) {
      if (!isObject(v)) return writeFail('Niagara variable is not an object', v);
      writeName(w, S, v.Name, 'variable name');
      nestedWrite(w, c, 'NiagaraTypeDefinition', v.TypeDef);
      if (extra === 'data') {
        const b = typeof v.VarData === 'string' ? unhex(v.VarData, 'variable data') : writeFail('Niagara variable VarData is not hex', v.VarData);
        w.i32(b.length);
        w.bytes(b);
      } else if (extra === 'offset') w.i32(jsonInt(v.Offset, 'Niagara variable Offset', -0x80000000, 0x7fffffff));
    },
    zero(): Json {
      const o: JsonObject = { Name: 'None', TypeDef: [] };
      if (extra === 'data') o.VarData = '';
      if (extra === 'offset') o.Offset = 0;
      return o;
    },
  };
}

const real = 'real' as const;
const v3: Field[] = xyz(real);
const v2: Field[] = xy(real);
const bound: Field[] = [['Type', 'u8'], ['Value', 'i32']];

export const NATIVE_STRUCTS: ReadonlyMap<string, NativeStruct> = new Map<string, NativeStruct>([
  ['Vector', fields('Vector', v3)],
  ['Vector_NetQuantize', fields('Vector', v3)],
  ['Vector_NetQuantize10', fields('Vector', v3)],
  ['Vector_NetQuantize100', fields('Vector', v3)],
  ['Vector_NetQuantizeNormal', fields('Vector', v3)],
  ['Vector2D', fields('Vector2D', v2)],
  ['Vector4', fields('Vector4', xyzw(real))],
  ['Vector2f', fields('Vector2f', xy('f32'))],
  ['Vector3f', fields('Vector3f', xyz('f32'))],
  ['Vector4f', fields('Vector4f', xyzw('f32'))],
  ['Vector3d', fields('Vector3d', xyz('f64'))],
  ['Vector4d', fields('Vector4d', xyzw('f64'))],
  ['Rotator', fields('Rotator', rot(real))],
  ['Rotator3f', fields('Rotator3f', rot('f32'))],
  ['Rotator3d', fields('Rotator3d', rot('f64'))],
  ['Quat', fields('Quat', xyzw(real))],
  ['Quat4f', fields('Quat4f', xyzw('f32'))],
  ['Quat4d', fields('Quat4d', xyzw('f64'))],
  ['Plane', fields('Plane', xyzw(real))],
  ['Plane4f', fields('Plane4f', xyzw('f32'))],
  ['Plane4d', fields('Plane4d', xyzw('f64'))],
  ['Sphere', fields('Sphere', [['Center', v3], ['W', real]])],
  ['Sphere3f', fields('Sphere3f', [['Center', xyz('f32')], ['W', 'f32']])],
  ['Sphere3d', fields('Sphere3d', [['Center', xyz('f64')], ['W', 'f64']])],
  ['Box', fields('Box', box(v3, 'IsValid'))],
  ['Box3f', fields('Box3f', box(xyz('f32'), 'IsValid'))],
  ['Box3d', fields('Box3d', box(xyz('f64'), 'IsValid'))],
  ['Box2D', fields('Box2D', box(v2, 'bIsValid'))],
  ['Box2f', fields('Box2f', box(xy('f32'), 'bIsValid'))],
  ['TwoVectors', fields('TwoVectors', [['v1', v3], ['v2', v3]])],
  ['Matrix', fields('Matrix', [['XPlane', xyzw(real)], ['YPlane', xyzw(real)], ['ZPlane', xyzw(real)], ['WPlane', xyzw(real)]])],
  ['Matrix44f', fields('Matrix44f', [['XPlane', xyzw('f32')], ['YPlane', xyzw('f32')], ['ZPlane', xyzw('f32')], ['WPlane', xyzw('f32')]])],
  ['Matrix44d', fields('Matrix44d', [['XPlane', xyzw('f64')], ['YPlane', xyzw('f64')], ['ZPlane', xyzw('f64')], ['WPlane', xyzw('f64')]])],
  ['Color', fields('Color', [['B', 'u8'], ['G', 'u8'], ['R', 'u8'], ['A', 'u8']])],
  ['LinearColor', fields('LinearColor', [['R', 'f32'], ['G', 'f32'], ['B', 'f32'], ['A', 'f32']])],
  ['IntPoint', fields('IntPoint', xy('i32'))],
  ['Int32Point', fields('IntPoint', xy('i32'))],
  ['IntVector2', fields('IntVector2', xy('i32'))],
  ['Int32Vector2', fields('IntVector2', xy('i32'))],
  ['IntVector', fields('IntVector', xyz('i32'))],
  ['IntVector4', fields('IntVector4', xyzw('i32'))],
  ['UintVector2', fields('UintVector2', xy('u32'))],
  ['Uint32Point', fields('UintVector2', xy('u32'))],
  ['UintVector', fields('UintVector', xyz('u32'))],
  ['UintVector4', fields('UintVector4', xyzw('u32'))],
  ['Int64Point', fields('Int64Point', xy('i64'))],
  ['Int64Vector2', fields('Int64Vector2', xy('i64'))],
  ['Int64Vector', fields('Int64Vector', xyz('i64'))],
  ['Int64Vector4', fields('Int64Vector4', xyzw('i64'))],
  ['UInt64Point', fields('UInt64Point', xy('u64'))],
  ['UInt64Vector2', fields('UInt64Vector2', xy('u64'))],
  ['UInt64Vector', fields('UInt64Vector', xyz('u64'))],
  ['UInt64Vector4', fields('UInt64Vector4', xyzw('u64'))],
  ['Guid', guid],
  ['DateTime', ticks],
  ['Timespan', ticks],
  ['FrameNumber', fields('FrameNumber', [['Value', 'i32']])],
  ['MovieSceneFrameRange', fields('MovieSceneFrameRange', [['LowerBound', bound], ['UpperBound', bound]])],
  ['SoftObjectPath', softPath],
  ['SoftClassPath', softPath],
  ['StringAssetReference', softPath],
  ['StringClassReference', softPath],
  ['GameplayTagContainer', tagContainer],
  ['RichCurveKey', fields('RichCurveKey', [['InterpMode', 'u8'], ['TangentMode', 'u8'], ['TangentWeightMode', 'u8'], ['Time', 'f32'], ['Value', 'f32'], ['ArriveTangent', 'f32'], ['ArriveTangentWeight', 'f32'], ['LeaveTangent', 'f32'], ['LeaveTangentWeight', 'f32']])],
  ['SimpleCurveKey', fields('SimpleCurveKey', [['Time', 'f32'], ['Value', 'f32']])],
  ['NavAgentSelector', fields('NavAgentSelector', [['PackedBits', 'u32']])],
  ['PerPlatformFloat', perPlatform('f32')],
  ['PerPlatformInt', perPlatform('i32')],
  ['PerPlatformBool', perPlatform('bool')],
  ['UniqueNetIdRepl', netId],
  ['DeprecateSlateVector2D', fields('DeprecateSlateVector2D', xy('f32'))],
  ['MovieSceneSequenceID', fields('MovieSceneSequenceID', [['Value', 'u32']])],
  ['MovieSceneFloatChannel', movieSceneChannel('f32')],
  ['MovieSceneDoubleChannel', movieSceneChannel('f64')],
  ['MovieSceneTimeWarpVariant', timeWarpVariant],
  ['NiagaraVariableBase', niagaraVariable('none')],
  ['NiagaraVariable', niagaraVariable('data')],
  ['NiagaraVariableWithOffset', niagaraVariable('offset')],
  ['FontCharacter', fields('FontCharacter', [['StartU', 'i32'], ['StartV', 'i32'], ['USize', 'i32'], ['VSize', 'i32'], ['TextureIndex', 'u8'], ['VerticalOffset', 'i32']])],
]);

/** The native struct of a name (case as the engine's names compare: without case). */
export function nativeStruct(name: string | undefined): NativeStruct | undefined {
  if (name === undefined) return undefined;
  let n = NATIVE_BY_NAME.get(name);
  if (n === undefined) {
    n = NATIVE_BY_LOWER.get(name.toLowerCase()) ?? null;
    // Names asked for are few (those of the structs of the packages read): remember the answer, bounded.
    if (NATIVE_BY_NAME.size < 65536) NATIVE_BY_NAME.set(name, n);
  }
  return n ?? undefined;
}
const NATIVE_BY_LOWER = new Map([...NATIVE_STRUCTS].map(([k, v]) => [k.toLowerCase(), v]));
const NATIVE_BY_NAME = new Map<string, NativeStruct | null>(NATIVE_STRUCTS);
