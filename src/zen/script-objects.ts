import { cityHash64 } from '../hash/cityhash.js';
import { lowerAscii, utf16leBytes } from '../hash/names.js';
import { ByteReader } from '../util/bytes.js';
import { ByteWriter } from './byte-writer.js';
import { resolveMappedName, writeMappedName, type MappedName } from './mapped-name.js';
import { makeScriptImport, NULL_OBJECT_INDEX } from './object-index.js';
import {
  parseNameHashes,
  parseNameStrings,
  readNameBatch,
  readNameBatchLazy,
  type LazyNameBatch,
  serializeNameHashes,
  serializeNameStrings,
  writeNameBatch,
} from './name-batch.js';

export const SCRIPT_OBJECT_ENTRY_SIZE = 32;

/** FScriptObjectEntry (32 bytes). Indices are FPackageObjectIndex values (ScriptImport or Null). */
export interface ScriptObjectEntry {
  /** Name in the global name map. */
  objectName: MappedName;
  globalIndex: bigint;
  outerIndex: bigint;
  cdoClassIndex: bigint;
}

/** The UE5 ScriptObjects chunk of the global container: the global names and the script object entries. */
export interface ScriptObjects {
  names: string[];
  nameHashes: bigint[];
  objects: ScriptObjectEntry[];
}

export interface ParseGlobalOptions {
  source?: string;
}

function readEntries(r: ByteReader, count: number): ScriptObjectEntry[] {
  r.needArray(count, SCRIPT_OBJECT_ENTRY_SIZE, 'script object entries');
  const v = r.view;
  const out: ScriptObjectEntry[] = new Array(count);
  for (let i = 0, at = r.pos; i < count; i++, at += SCRIPT_OBJECT_ENTRY_SIZE) {
    const indexAndType = v.getUint32(at, true);
    out[i] = {
      objectName: { index: indexAndType & 0x3fffffff, type: indexAndType >>> 30, number: v.getUint32(at + 4, true) },
      globalIndex: v.getBigUint64(at + 8, true),
      outerIndex: v.getBigUint64(at + 16, true),
      cdoClassIndex: v.getBigUint64(at + 24, true),
    };
  }
  r.pos += count * SCRIPT_OBJECT_ENTRY_SIZE;
  return out;
}

function writeEntries(w: ByteWriter, entries: readonly ScriptObjectEntry[]): void {
  for (const e of entries) {
    writeMappedName(w, e.objectName, 'script object name');
    w.u64(e.globalIndex, 'script object global index');
    w.u64(e.outerIndex, 'script object outer index');
    w.u64(e.cdoClassIndex, 'script object CDO class index');
  }
}

function expectEnd(r: ByteReader, what: string): void {
  if (r.remaining !== 0) r.fail('SIZE_MISMATCH', `${r.remaining} bytes left after the ${what}`);
}

/** Parses a UE5 ScriptObjects chunk: a new-format name batch, u32 count, count × 32-byte entries, nothing after. */
export function parseScriptObjects(bytes: Uint8Array, options: ParseGlobalOptions = {}): ScriptObjects {
  const r = new ByteReader(bytes, options.source ?? 'script objects');
  const batch = readNameBatch(r, 'global name map');
  const count = r.u32('script object count');
  const objects = readEntries(r, count);
  expectEnd(r, 'script object entries');
  return { names: batch.names, nameHashes: batch.hashes, objects };
}

/**
 * The script object entries as 32-bit words, 8 per entry in file order: name index|type, name number, then the
 * global, outer and CDO class indices each as low and high word. Reading a global table this way costs a copy
 * instead of ~37,000 objects with three bigints each.
 */
export interface ScriptObjectTable {
  count: number;
  words: Uint32Array;
  names: LazyNameBatch;
}

export const SCRIPT_OBJECT_WORDS = SCRIPT_OBJECT_ENTRY_SIZE / 4;

/** Reads a UE5 ScriptObjects chunk with the checks of `parseScriptObjects`, names decoded on demand. */
export function readScriptObjectTable(bytes: Uint8Array, options: ParseGlobalOptions = {}): ScriptObjectTable {
  const r = new ByteReader(bytes, options.source ?? 'script objects');
  const names = readNameBatchLazy(r, 'global name map');
  const count = r.u32('script object count');
  r.needArray(count, SCRIPT_OBJECT_ENTRY_SIZE, 'script object entries');
  const words = new Uint32Array(count * SCRIPT_OBJECT_WORDS);
  // A copy, so the words are aligned whatever the offset of the entries; the format is little-endian, as is every
  // host Node runs on.
  new Uint8Array(words.buffer).set(bytes.subarray(r.pos, r.pos + count * SCRIPT_OBJECT_ENTRY_SIZE));
  r.pos += count * SCRIPT_OBJECT_ENTRY_SIZE;
  expectEnd(r, 'script object entries');
  return { count, words, names };
}

/** The table form of parsed entries (UE4 initial load meta, or entries built in a test). */
export function scriptObjectTable(names: readonly string[], objects: readonly ScriptObjectEntry[]): ScriptObjectTable {
  const words = new Uint32Array(objects.length * SCRIPT_OBJECT_WORDS);
  const split = (at: number, v: bigint) => {
    words[at] = Number(v & 0xffffffffn);
    words[at + 1] = Number(v >> 32n);
  };
  objects.forEach((o, i) => {
    const at = i * SCRIPT_OBJECT_WORDS;
    words[at] = ((o.objectName.type << 30) | o.objectName.index) >>> 0;
    words[at + 1] = o.objectName.number;
    split(at + 2, o.globalIndex);
    split(at + 4, o.outerIndex);
    split(at + 6, o.cdoClassIndex);
  });
  return { count: objects.length, words, names: { count: names.length, name: (i) => names[i] } };
}

export function serializeScriptObjects(s: ScriptObjects): Uint8Array {
  const w = new ByteWriter(1 << 16);
  writeNameBatch(w, { names: s.names, hashes: s.nameHashes }, 'global name map');
  w.u32(s.objects.length);
  writeEntries(w, s.objects);
  return w.finish();
}

/** UE4 LoaderGlobalNames chunk: old-format name strings. */
export function parseLoaderGlobalNames(bytes: Uint8Array, options: ParseGlobalOptions = {}): string[] {
  return parseNameStrings(bytes, options.source ?? 'global names', 0, 'global names');
}

export const serializeLoaderGlobalNames = (names: readonly string[]): Uint8Array => serializeNameStrings(names);

/** UE4 LoaderGlobalNameHashes chunk: the hash algorithm id, then one u64 per global name. */
export function parseLoaderGlobalNameHashes(bytes: Uint8Array, options: ParseGlobalOptions = {}): bigint[] {
  return parseNameHashes(bytes, options.source ?? 'global name hashes', 0, 'global name hashes');
}

export const serializeLoaderGlobalNameHashes = (hashes: readonly bigint[]): Uint8Array => serializeNameHashes(hashes);

/** UE4 LoaderInitialLoadMeta chunk: i32 count, then count × 32-byte script object entries. */
export function parseLoaderInitialLoadMeta(bytes: Uint8Array, options: ParseGlobalOptions = {}): ScriptObjectEntry[] {
  const r = new ByteReader(bytes, options.source ?? 'initial load meta');
  const at = r.pos;
  const count = r.i32('script object count');
  if (count < 0) r.fail('BAD_VALUE', `script object count ${count} is negative`, at);
  const objects = readEntries(r, count);
  expectEnd(r, 'script object entries');
  return objects;
}

export function serializeLoaderInitialLoadMeta(entries: readonly ScriptObjectEntry[]): Uint8Array {
  const w = new ByteWriter(4 + entries.length * SCRIPT_OBJECT_ENTRY_SIZE);
  w.i32(entries.length);
  writeEntries(w, entries);
  return w.finish();
}

/**
 * The full path of every script object (`/Script/Engine.Actor` style joined with '/': `/Script/Engine/Actor`),
 * following outer indices; undefined where a name or an outer cannot be resolved or the outers form a cycle.
 */
export function scriptObjectPaths(names: readonly string[], objects: readonly ScriptObjectEntry[]): (string | undefined)[] {
  const byIndex = new Map<bigint, number>();
  objects.forEach((o, i) => byIndex.set(o.globalIndex, i));
  const memo: (string | undefined | null)[] = new Array(objects.length).fill(null);
  const resolve = (i: number, depth: number): string | undefined => {
    const known = memo[i];
    if (known !== null) return known;
    if (depth > objects.length) return undefined;
    const o = objects[i]!;
    const name = resolveMappedName(names, o.objectName);
    let path: string | undefined;
    if (name !== undefined) {
      if (o.outerIndex === NULL_OBJECT_INDEX) path = name;
      else {
        const outer = byIndex.get(o.outerIndex);
        const outerPath = outer === undefined ? undefined : resolve(outer, depth + 1);
        path = outerPath === undefined ? undefined : `${outerPath}/${name}`;
      }
    }
    memo[i] = path;
    return path;
  };
  return objects.map((_, i) => resolve(i, 0));
}

/** The ScriptImport object index of a script object path (`/Script/Engine/Actor`; '.' and ':' count as '/'). */
export function scriptImportIndex(path: string): bigint {
  return makeScriptImport(cityHash64(utf16leBytes(lowerAscii(path.replace(/[.:]/g, '/')))));
}
