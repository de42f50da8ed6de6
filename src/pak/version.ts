import { IoStoreError } from '../errors.js';
import { quote } from '../util/quote.js';

/** The pak trailer's magic number (little-endian u32 `E1 12 6F 5A`). */
export const PAK_MAGIC = 0x5a6f12e1;

/**
 * EPakFileVersion: the number in a pak's footer. Each value names the feature it introduced; readers must
 * handle every earlier one too.
 */
export const PakVersion = {
  /** First format; entries carry a timestamp. */
  Initial: 1,
  /** Entry timestamps removed. */
  NoTimestamps: 2,
  /** Entries gain compression blocks, flags and a block size. */
  CompressionEncryption: 3,
  /** Footer gains the "index is encrypted" flag. */
  IndexEncryption: 4,
  /** Compression block offsets become relative to the entry's own offset. */
  RelativeChunkOffsets: 5,
  /** Entries may be delete records (patch paks removing a file). */
  DeleteRecords: 6,
  /** Footer gains the GUID of the key that encrypted the pak. */
  EncryptionKeyGuid: 7,
  /** Compression is named in the footer (4 slots in UE 4.22, 5 from UE 4.23); entries store a slot index. */
  FNameBasedCompressionMethod: 8,
  /** Footer gains a "frozen index" flag (memory-image index, UE 4.25 only, later refused by the engine). */
  FrozenIndex: 9,
  /** Index split into a primary index, a path-hash index and a full directory index; entries bit-encoded. */
  PathHashIndex: 10,
  /** Path hashes use FNV-64 with the offset basis and prime the right way round. */
  Fnv64BugFix: 11,
  /** File names in the directory index are stored as UTF-8 strings without a NUL. */
  Utf8PakDirectory: 12,
  /** The full directory index may be a flat, sorted, front-coded table (magic 'PFDQ'). */
  SortedDirectoryIndex: 13,
  /** Footer gains the pakchunk index (i32, -1 when none) after the compression names. */
  PakchunkIndex: 14,
  /** Footer gains the encryption method (1 AES-ECB, 2 AES-CTR) and the IVs of the three index parts. */
  EncryptionMethod: 15,
} as const;

export type PakVersionNumber = (typeof PakVersion)[keyof typeof PakVersion];

export const PAK_VERSION_MIN = PakVersion.Initial;
export const PAK_VERSION_LATEST = PakVersion.EncryptionMethod;

const NAMES: Record<number, string> = Object.fromEntries(Object.entries(PakVersion).map(([k, v]) => [v, k]));

/** The EPakFileVersion name of a version number, e.g. `Fnv64BugFix`, or `unknown` for anything else. */
export function pakVersionName(version: number): string {
  return NAMES[version] ?? 'unknown';
}

export function isKnownPakVersion(version: number): boolean {
  return Number.isInteger(version) && version >= PAK_VERSION_MIN && version <= PAK_VERSION_LATEST;
}

/**
 * Which pak version each engine release writes. `evidence` says how the row is known:
 * - `corpus`: read from the footer of engine-made paks in the shared corpus (UE 5.1 companion paks: 11;
 *   UE 5.8.1 paks: 12; UE 6.0 paks: 15).
 * - `public`: from public reader/writer projects (repak's compatibility table for UE 4.0-5.3; CUE4Parse,
 *   which treats versions above 11 as unsupported for games before UE 5.7 and added version 12 alongside
 *   its UE 5.7 support).
 */
export interface EnginePakVersion {
  from: string;
  to: string;
  version: number;
  evidence: 'corpus' | 'public';
  note: string;
}

export const ENGINE_PAK_VERSIONS: readonly EnginePakVersion[] = [
  { from: '4.0', to: '4.2', version: 2, evidence: 'public', note: 'NoTimestamps' },
  { from: '4.3', to: '4.15', version: 3, evidence: 'public', note: 'CompressionEncryption' },
  { from: '4.16', to: '4.19', version: 4, evidence: 'public', note: 'IndexEncryption' },
  { from: '4.20', to: '4.20', version: 5, evidence: 'public', note: 'RelativeChunkOffsets' },
  { from: '4.21', to: '4.21', version: 7, evidence: 'public', note: 'EncryptionKeyGuid' },
  { from: '4.22', to: '4.22', version: 8, evidence: 'public', note: 'FNameBasedCompressionMethod, 4 name slots, u8 entry method' },
  { from: '4.23', to: '4.24', version: 8, evidence: 'public', note: 'FNameBasedCompressionMethod, 5 name slots, u32 entry method' },
  { from: '4.25', to: '4.25', version: 9, evidence: 'public', note: 'FrozenIndex flag in the footer' },
  { from: '4.26', to: '5.0', version: 11, evidence: 'public', note: 'Fnv64BugFix' },
  { from: '5.1', to: '5.1', version: 11, evidence: 'corpus', note: 'ue5.1-patchtest companion paks' },
  { from: '5.2', to: '5.6', version: 11, evidence: 'public', note: 'Fnv64BugFix' },
  { from: '5.7', to: '5.7', version: 12, evidence: 'public', note: 'Utf8PakDirectory' },
  { from: '5.8', to: '5.8', version: 12, evidence: 'corpus', note: 'ue5.8-cue4parse paks (UE 5.8.1)' },
  { from: '6.0', to: '6.0', version: 15, evidence: 'corpus', note: 'ue6.0-cue4parse paks: flat directory index, pakchunk index, encryption method + IVs' },
];

function parseEngine(engine: string): [number, number] | undefined {
  const m = /^\s*(?:ue|unreal(?:\s*engine)?)?\s*[-_ ]?(\d+)(?:\.(\d+))?(?:\.\d+)*\s*$/i.exec(engine);
  if (!m) return undefined;
  return [Number(m[1]), m[2] === undefined ? -1 : Number(m[2])];
}

function cmp(a: [number, number], b: [number, number]): number {
  return a[0] !== b[0] ? a[0] - b[0] : a[1] - b[1];
}

/**
 * The pak version an engine release writes, e.g. `pakVersionForEngine('UE5.3')` is 11. Accepts `UE5.3`, `5.3`,
 * `5.3.2`, `UE 4.27`. A bare major (`UE5`) is refused because the version changed within majors.
 */
export function pakVersionForEngine(engine: string): number {
  const v = parseEngine(engine);
  if (!v || v[1] < 0) throw new IoStoreError('USAGE', `not an engine version: ${quote(engine)} (expected e.g. UE5.3 or 4.27)`);
  for (const row of ENGINE_PAK_VERSIONS) {
    const from = parseEngine(row.from)!;
    const to = parseEngine(row.to)!;
    if (cmp(v, from) >= 0 && cmp(v, to) <= 0) return row.version;
  }
  throw new IoStoreError('UNSUPPORTED', `no known pak version for engine ${engine} (known: UE4.0 to UE5.8 and UE6.0)`);
}
