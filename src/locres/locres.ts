/**
 * Localization resources (`.locres`): the translated texts of one culture, by namespace and key, as the engine
 * compiles them (FTextLocalizationResource). Four layouts, told apart by a version byte after a magic GUID; the
 * oldest has neither and starts with the namespace count.
 */
import { ByteReader } from '../util/bytes.js';

export const LOCRES_VERSIONS = ['Legacy', 'Compact', 'Optimized_CRC32', 'Optimized_CityHash64_UTF16'] as const;
export type LocresVersionName = (typeof LOCRES_VERSIONS)[number];

/** FTextLocalizationResourceVersion::LocResMagic, the GUID {7574140E-FC034A67-9D90154A-1B7F37C3} as four LE u32s. */
const MAGIC = Uint8Array.of(0x0e, 0x14, 0x74, 0x75, 0x67, 0x4a, 0x03, 0xfc, 0x4a, 0x15, 0x90, 0x9d, 0xc3, 0x37, 0x7f, 0x1b);

export interface LocresEntry {
  namespace: string;
  key: string;
  /** Hash of the source text the translation was made from (the engine compares it to spot stale translations). */
  sourceHash: number;
  /** The translated text. */
  text: string;
}

export interface Locres {
  version: number;
  versionName: LocresVersionName;
  namespaceCount: number;
  entries: LocresEntry[];
}

/** Whether the bytes start with the .locres magic (every layout but the pre-4.13 one has it). */
export function isLocres(bytes: Uint8Array): boolean {
  return bytes.length >= MAGIC.length && MAGIC.every((b, i) => bytes[i] === b);
}

/** Parses a .locres file: every entry in file order, its text looked up in the file's string table. */
export function parseLocres(bytes: Uint8Array, o: { source?: string } = {}): Locres {
  const r = new ByteReader(bytes, o.source ?? '.locres');
  let version = 0;
  if (isLocres(bytes)) {
    r.skip(MAGIC.length, 'magic');
    const at = r.pos;
    version = r.u8('version');
    if (version >= LOCRES_VERSIONS.length) r.fail('UNSUPPORTED', `.locres version ${version} (this tool reads 0 to ${LOCRES_VERSIONS.length - 1})`, at);
  }
  const optimized = version >= 2;
  let strings: string[] | undefined;
  if (version >= 1) strings = readStringTable(r, optimized);
  // The total entry count (optimized layouts) only presizes the engine's map.
  if (optimized) r.skip(4, 'entry count');
  const namespaceCount = r.u32('namespace count');
  r.needArray(namespaceCount, optimized ? 12 : 8, 'namespaces');
  const entries: LocresEntry[] = [];
  for (let n = 0; n < namespaceCount; n++) {
    if (optimized) r.skip(4, 'namespace hash');
    const namespace = r.fstring('namespace');
    const keyCount = r.u32('key count');
    r.needArray(keyCount, version === 0 ? 12 : optimized ? 16 : 12, `keys of namespace "${namespace}"`);
    for (let k = 0; k < keyCount; k++) {
      if (optimized) r.skip(4, 'key hash');
      const key = r.fstring('key');
      const sourceHash = r.u32('source string hash');
      let text: string;
      if (strings) {
        const at = r.pos;
        const index = r.i32('string index');
        if (index < 0 || index >= strings.length) r.fail('BAD_VALUE', `key "${key}": string index ${index} is outside the table of ${strings.length} strings`, at);
        text = strings[index]!;
      } else text = r.fstring('localized string');
      entries.push({ namespace, key, sourceHash, text });
    }
  }
  return { version, versionName: LOCRES_VERSIONS[version]!, namespaceCount, entries };
}

/** The table of distinct texts the entries index into, at the offset the header gives (-1: none). */
function readStringTable(r: ByteReader, withRefCounts: boolean): string[] {
  const at = r.pos;
  const offset = r.i64('string table offset');
  if (offset === -1n) return [];
  if (offset < 0n || offset > BigInt(r.bytes.length)) r.fail('BAD_VALUE', `string table offset ${offset} is outside the file (${r.bytes.length} bytes)`, at);
  const t = new ByteReader(r.bytes, r.source);
  t.pos = Number(offset);
  const count = t.i32('string count');
  t.needArray(count, withRefCounts ? 8 : 4, 'strings');
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    out.push(t.fstring(`string ${i}`));
    if (withRefCounts) t.skip(4, 'reference count');
  }
  return out;
}
