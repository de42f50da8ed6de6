import { IoStoreError } from '../errors.js';
import { ByteReader, latin1, toHex, utf16le } from '../util/bytes.js';
import { readCompactIndex } from './compact-index.js';
import { CLASSIC_PACKAGE_TAG, ClassicVersion } from './version.js';

/** One generation of the package (v68+): the export and name counts it had when that version was saved. */
export interface ClassicGeneration {
  exportCount: number;
  nameCount: number;
}

/** Where a table sits in the file: `offset` of its first byte, `end` one past its last. */
export interface ClassicExtent {
  offset: number;
  end: number;
}

export interface ClassicSummary {
  fileVersion: number;
  licenseeVersion: number;
  packageFlags: number;
  nameCount: number;
  nameOffset: number;
  exportCount: number;
  exportOffset: number;
  importCount: number;
  importOffset: number;
  /** Before v68: the heritage table (GUIDs of earlier versions of the package, the last one its own). */
  heritageCount?: number;
  heritageOffset?: number;
  /** The package's GUID as 32 hex digits in file byte order (v68+; before, the last heritage GUID). */
  guid: string | null;
  /** v68+ only; empty before. */
  generations: ClassicGeneration[];
  /** Size of the summary: where the bytes after the header start. */
  headerSize: number;
}

export interface ClassicName {
  name: string;
  flags: number;
}

export interface ClassicImport {
  classPackage: string;
  className: string;
  /** Object reference of the outer (negative: import -ref-1; positive: export ref-1; 0: none). */
  outerRef: number;
  name: string;
  /** Dotted path, outermost first: `Engine.Actor`. */
  path: string;
}

export interface ClassicExport {
  /** Object reference of the class; 0 means the object is itself a class. */
  classRef: number;
  superRef: number;
  outerRef: number;
  name: string;
  flags: number;
  serialSize: number;
  /** Absolute offset of the object's data; null when serialSize is 0 (the field is then absent). */
  serialOffset: number | null;
  /** Dotted path from the package name: `MyPackage.MyClass.MyFunction`. */
  path: string;
}

export interface ClassicPackage {
  source: string;
  /** The package's name: classic packages do not store it; it is the file name without its extension. */
  packageName: string;
  summary: ClassicSummary;
  names: ClassicName[];
  imports: ClassicImport[];
  exports: ClassicExport[];
  /** Where each table was found; `heritage` only before v68. */
  extents: { names: ClassicExtent; imports: ClassicExtent; exports: ClassicExtent; heritage?: ClassicExtent };
  /** GUIDs of the heritage table (before v68), 32 hex digits each. */
  heritage: string[];
  /** The path of an object reference (null for 0). */
  objectPath(ref: number): string | null;
}

export interface ParseClassicPackageOptions {
  /** File name for error messages (default "classic package"). */
  source?: string;
  /** The package name export paths start with (default: `source`'s base name without its extension). */
  packageName?: string;
}

// Smallest encodings of each entry, used to bound counts by the bytes that remain before allocating anything.
const MIN_NAME_ENTRY = 5; // 1-byte string (or length) + u32 flags
const MIN_IMPORT_ENTRY = 7; // three 1-byte compact indices + i32 outer
const MIN_EXPORT_ENTRY = 12; // four 1-byte compact indices + i32 outer + u32 flags
const GUID_SIZE = 16;
/** Deepest chain of outers accepted; the corpus's deepest is 3 (class, function, local). */
const MAX_OUTER_DEPTH = 64;
/** Positions of the header's table offsets, for errors about the tables they point to. */
const HEADER_FIELD = { nameOffset: 0x10, exportOffset: 0x18, importOffset: 0x20, heritageOffset: 0x28 } as const;

/**
 * Parses the header, name, import and export tables of a classic Unreal package (Unreal Engine 1 and 2, file
 * versions 61-129) and resolves every object reference to a dotted path. Export data is not read, only checked to
 * lie inside the file. Throws IoStoreError naming the file, the offset and the table on bad input.
 */
export function parseClassicPackage(bytes: Uint8Array, opts: ParseClassicPackageOptions = {}): ClassicPackage {
  const source = opts.source ?? 'classic package';
  const packageName = opts.packageName ?? baseName(source);
  const r = new ByteReader(bytes, source);
  const summary = readSummary(r);
  const names = readNameTable(r, summary);
  const fields = new EntryFields(r, summary, names.entries);
  const imports = readImportTable(r, summary, fields);
  const exports = readExportTable(r, summary, fields, bytes.length);
  const heritage = readHeritageTable(r, summary);
  const pathOf = objectPaths(imports.entries, exports.entries, packageName, source);

  const outImports: ClassicImport[] = imports.entries.map(({ at: _at, ...e }, i) => ({ ...e, path: pathOf(-i - 1)! }));
  const outExports: ClassicExport[] = exports.entries.map(({ at: _at, ...e }, i) => ({ ...e, path: pathOf(i + 1)! }));
  return {
    source,
    packageName,
    summary,
    names: names.entries,
    imports: outImports,
    exports: outExports,
    extents: { names: names.extent, imports: imports.extent, exports: exports.extent, ...(heritage.extent ? { heritage: heritage.extent } : {}) },
    heritage: heritage.guids,
    objectPath: (ref) => {
      if (!Number.isInteger(ref) || ref < -outImports.length || ref > outExports.length) {
        throw new IoStoreError('USAGE', `object reference ${ref} is out of range (${outImports.length} imports, ${outExports.length} exports)`, { file: source });
      }
      return pathOf(ref);
    },
  };
}

/** A table's entries as read, each with the offset it starts at (for errors found later), and the table's extent. */
interface Table<T> {
  entries: T[];
  extent: ClassicExtent;
}

type ImportEntry = Omit<ClassicImport, 'path'> & { at: number };
type ExportEntry = Omit<ClassicExport, 'path'> & { at: number };

function readNameTable(r: ByteReader, summary: ClassicSummary): Table<ClassicName> {
  const entries: ClassicName[] = [];
  const start = seek(r, summary.nameOffset, summary.nameCount, MIN_NAME_ENTRY, 'name table', HEADER_FIELD.nameOffset);
  for (let i = 0; i < summary.nameCount; i++) {
    const what = `name table entry ${i}`;
    const name = summary.fileVersion < ClassicVersion.NameLengthPrefix ? readNulString(r, what) : readPrefixedString(r, what);
    entries.push({ name, flags: r.u32(`${what} flags`) });
  }
  return { entries, extent: { offset: start, end: summary.nameCount === 0 ? start : r.pos } };
}

/** The checked fields the import and export tables share: names by index, object references in range. */
class EntryFields {
  constructor(
    private readonly r: ByteReader,
    private readonly summary: ClassicSummary,
    private readonly names: readonly ClassicName[],
  ) {}

  name(what: string): string {
    const at = this.r.pos;
    const i = readCompactIndex(this.r, what);
    const n = this.names[i];
    if (n === undefined) this.r.fail('BAD_VALUE', `${what}: name index ${i} is out of range (${this.names.length} names)`, at);
    return n.name;
  }

  /** An object reference, stored as a compact index or (outers) as a 32-bit integer. */
  ref(what: string, compact: boolean): number {
    const at = this.r.pos;
    const ref = compact ? readCompactIndex(this.r, what) : this.r.i32(what);
    const { importCount, exportCount } = this.summary;
    if (ref < -importCount || ref > exportCount) {
      this.r.fail('BAD_VALUE', `${what}: object reference ${ref} is out of range (${importCount} imports, ${exportCount} exports)`, at);
    }
    return ref;
  }
}

function readImportTable(r: ByteReader, summary: ClassicSummary, f: EntryFields): Table<ImportEntry> {
  const entries: ImportEntry[] = [];
  const start = seek(r, summary.importOffset, summary.importCount, MIN_IMPORT_ENTRY, 'import table', HEADER_FIELD.importOffset);
  for (let i = 0; i < summary.importCount; i++) {
    const what = `import table entry ${i}`;
    const at = r.pos;
    const classPackage = f.name(`${what} class package`);
    const className = f.name(`${what} class name`);
    const outerRef = f.ref(`${what} outer`, false);
    entries.push({ classPackage, className, outerRef, name: f.name(`${what} object name`), at });
  }
  return { entries, extent: { offset: start, end: summary.importCount === 0 ? start : r.pos } };
}

function readExportTable(r: ByteReader, summary: ClassicSummary, f: EntryFields, fileSize: number): Table<ExportEntry> {
  const entries: ExportEntry[] = [];
  const start = seek(r, summary.exportOffset, summary.exportCount, MIN_EXPORT_ENTRY, 'export table', HEADER_FIELD.exportOffset);
  for (let i = 0; i < summary.exportCount; i++) {
    const what = `export table entry ${i}`;
    const at = r.pos;
    const classRef = f.ref(`${what} class`, true);
    const superRef = f.ref(`${what} super`, true);
    const outerRef = f.ref(`${what} outer`, false);
    const name = f.name(`${what} object name`);
    const flags = r.u32(`${what} flags`);
    const sizeAt = r.pos;
    const serialSize = readCompactIndex(r, `${what} serial size`);
    if (serialSize < 0) r.fail('BAD_VALUE', `${what}: negative serial size ${serialSize}`, sizeAt);
    let serialOffset: number | null = null;
    if (serialSize > 0) {
      const offsetAt = r.pos;
      serialOffset = readCompactIndex(r, `${what} serial offset`);
      if (serialOffset < 0) r.fail('BAD_VALUE', `${what}: negative serial offset ${serialOffset}`, offsetAt);
      if (serialOffset + serialSize > fileSize) {
        r.fail('TRUNCATED', `${what}: object data at ${serialOffset} of ${serialSize} bytes runs past the end of the file (${fileSize} bytes)`, offsetAt);
      }
    }
    entries.push({ classRef, superRef, outerRef, name, flags, serialSize, serialOffset, at });
  }
  return { entries, extent: { offset: start, end: summary.exportCount === 0 ? start : r.pos } };
}

/** Before v68: the heritage table's GUIDs (hex); the last one is the package's own, which becomes the summary's GUID. */
function readHeritageTable(r: ByteReader, summary: ClassicSummary): { guids: string[]; extent?: ClassicExtent } {
  if (summary.heritageCount === undefined || summary.heritageOffset === undefined) return { guids: [] };
  const start = seek(r, summary.heritageOffset, summary.heritageCount, GUID_SIZE, 'heritage table', HEADER_FIELD.heritageOffset);
  const guids = Array.from({ length: summary.heritageCount }, (_, i) => toHex(r.bytesView(GUID_SIZE, `heritage table entry ${i}`)));
  summary.guid = guids.at(-1) ?? null;
  return { guids, extent: { offset: start, end: summary.heritageCount === 0 ? start : r.pos } };
}

/**
 * Paths: each entry's outer chain, outermost first, made on demand and kept. Real chains are a few levels deep
 * (package, group, object; class, function, local); capping the depth rejects loops and keeps a hostile chain from
 * building quadratic text.
 */
function objectPaths(imports: readonly ImportEntry[], exports: readonly ExportEntry[], packageName: string, source: string): (ref: number) => string | null {
  const importPaths: Array<string | undefined> = [];
  const exportPaths: Array<string | undefined> = [];
  const importDepths: number[] = [];
  const exportDepths: number[] = [];
  return (ref: number): string | null => {
    if (ref === 0) return null;
    const cached = ref < 0 ? importPaths[-ref - 1] : exportPaths[ref - 1];
    if (cached !== undefined) return cached;
    const chain: number[] = [];
    let cur = ref;
    let prefix = '';
    let depth = 0;
    while (cur !== 0) {
      const known = cur < 0 ? importPaths[-cur - 1] : exportPaths[cur - 1];
      if (known !== undefined) {
        prefix = known;
        depth = cur < 0 ? importDepths[-cur - 1]! : exportDepths[cur - 1]!;
      } else {
        chain.push(cur);
        cur = cur < 0 ? imports[-cur - 1]!.outerRef : exports[cur - 1]!.outerRef;
      }
      if (known !== undefined || chain.length + depth > MAX_OUTER_DEPTH) break;
    }
    if (chain.length + depth > MAX_OUTER_DEPTH) {
      const e = ref < 0 ? imports[-ref - 1]! : exports[ref - 1]!;
      const table = ref < 0 ? `import table entry ${-ref - 1}` : `export table entry ${ref - 1}`;
      throw new IoStoreError('BAD_VALUE', `${table}: its chain of outers loops or is deeper than ${MAX_OUTER_DEPTH}`, { file: source, offset: e.at });
    }
    // An export without an outer lives directly in this package; an import without one is a package itself.
    for (let i = chain.length - 1; i >= 0; i--) {
      const c = chain[i]!;
      depth++;
      if (c < 0) {
        const path = prefix ? `${prefix}.${imports[-c - 1]!.name}` : imports[-c - 1]!.name;
        importPaths[-c - 1] = path;
        importDepths[-c - 1] = depth;
        prefix = path;
      } else {
        const path = `${prefix || packageName}.${exports[c - 1]!.name}`;
        exportPaths[c - 1] = path;
        exportDepths[c - 1] = depth;
        prefix = path;
      }
    }
    return prefix;
  };
}

function readSummary(r: ByteReader): ClassicSummary {
  const tag = r.u32('package tag');
  if (tag !== CLASSIC_PACKAGE_TAG) r.fail('BAD_MAGIC', `not an Unreal package (tag 0x${tag.toString(16).padStart(8, '0')})`, 0);
  const word = r.i32('file version');
  const fileVersion = word & 0xffff;
  const licenseeVersion = word >>> 16;
  if (word <= 0 || fileVersion < ClassicVersion.Oldest || fileVersion > ClassicVersion.Newest) {
    r.fail('UNSUPPORTED', `file version ${word < 0 ? word : fileVersion} is not a classic (Unreal Engine 1/2) package version (${ClassicVersion.Oldest}-${ClassicVersion.Newest})`, 4);
  }
  const packageFlags = r.u32('package flags');
  const count = (what: string) => {
    const at = r.pos;
    const n = r.i32(what);
    if (n < 0) r.fail('BAD_VALUE', `header: negative ${what} ${n}`, at);
    return n;
  };
  const offset = (what: string) => r.u32(what);
  const nameCount = count('name count');
  const nameOffset = offset('name offset');
  const exportCount = count('export count');
  const exportOffset = offset('export offset');
  const importCount = count('import count');
  const importOffset = offset('import offset');
  const summary: ClassicSummary = {
    fileVersion, licenseeVersion, packageFlags, nameCount, nameOffset, exportCount, exportOffset, importCount, importOffset,
    guid: null, generations: [], headerSize: 0,
  };
  if (fileVersion < ClassicVersion.GuidAndGenerations) {
    summary.heritageCount = count('heritage count');
    summary.heritageOffset = offset('heritage offset');
  } else {
    summary.guid = toHex(r.bytesView(GUID_SIZE, 'package GUID'));
    const generationCount = count('generation count');
    r.needArray(generationCount, 8, 'header generations');
    for (let i = 0; i < generationCount; i++) {
      summary.generations.push({ exportCount: r.i32(`generation ${i} export count`), nameCount: r.i32(`generation ${i} name count`) });
    }
  }
  summary.headerSize = r.pos;
  return summary;
}

/** Moves to a table's offset after checking that `count` entries of at least `minSize` bytes can fit there; an empty table's offset is not used. */
function seek(r: ByteReader, offset: number, count: number, minSize: number, table: string, fieldAt: number): number {
  if (count === 0) return offset;
  if (offset > r.bytes.length) {
    r.fail('TRUNCATED', `${table}: offset ${offset} is past the end of the file (${r.bytes.length} bytes)`, fieldAt);
  }
  r.pos = offset;
  r.needArray(count, minSize, table);
  return offset;
}

/** Before v64: a string up to its NUL. */
function readNulString(r: ByteReader, what: string): string {
  const at = r.pos;
  const end = r.bytes.indexOf(0, at);
  if (end < 0) r.fail('TRUNCATED', `${what}: name has no terminating NUL before the end of the file`, at);
  const s = latin1(r.bytes.subarray(at, end));
  r.pos = end + 1;
  return s;
}

/** v64+: a compact-index length counting the NUL; negative lengths count UTF-16 units (later UE2 builds). */
function readPrefixedString(r: ByteReader, what: string): string {
  const at = r.pos;
  const len = readCompactIndex(r, `${what} length`);
  if (len === 0) return '';
  const size = len > 0 ? len : -len * 2;
  if (size > r.remaining) r.fail('TRUNCATED', `${what}: name of ${size} bytes runs past the end of the file`, at);
  const raw = r.bytesView(size, what);
  const nul = len > 0 ? raw[size - 1] === 0 : raw[size - 1] === 0 && raw[size - 2] === 0;
  if (!nul) r.fail('BAD_VALUE', `${what}: name is not NUL-terminated`, at);
  return len > 0 ? latin1(raw.subarray(0, size - 1)) : utf16le(raw.subarray(0, size - 2));
}

function baseName(source: string): string {
  const file = source.split(/[\\/]/).pop() ?? source;
  const dot = file.lastIndexOf('.');
  return dot > 0 ? file.slice(0, dot) : file;
}
