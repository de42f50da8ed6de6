import { IoStoreError } from '../errors.js';
import { toHex } from '../util/bytes.js';
import type { EngineGeneration } from './engine.js';
import { quote } from '../util/quote.js';

/** EIoChunkType as numbered by UE5. */
export const CHUNK_TYPES_UE5 = [
  'Invalid', 'ExportBundleData', 'BulkData', 'OptionalBulkData', 'MemoryMappedBulkData', 'ScriptObjects',
  'ContainerHeader', 'ExternalFile', 'ShaderCodeLibrary', 'ShaderCode', 'PackageStoreEntry', 'DerivedData',
  'EditorDerivedData', 'PackageResource',
] as const;

/** EIoChunkType as numbered by UE 4.26/4.27 (ShaderCodeLibrary/ShaderCode appeared in 4.27). */
export const CHUNK_TYPES_UE4 = [
  'Invalid', 'InstallManifest', 'ExportBundleData', 'BulkData', 'OptionalBulkData', 'MemoryMappedBulkData',
  'LoaderGlobalMeta', 'LoaderInitialLoadMeta', 'LoaderGlobalNames', 'LoaderGlobalNameHashes', 'ContainerHeader',
  'ShaderCodeLibrary', 'ShaderCode',
] as const;

export type ChunkTypeName = (typeof CHUNK_TYPES_UE5)[number] | (typeof CHUNK_TYPES_UE4)[number];

export const CHUNK_ID_SIZE = 12;

export function chunkTypeTable(gen: EngineGeneration): readonly string[] {
  return gen === 'UE4' ? CHUNK_TYPES_UE4 : CHUNK_TYPES_UE5;
}

export function chunkTypeName(type: number, gen: EngineGeneration): string {
  return chunkTypeTable(gen)[type] ?? `Unknown${type}`;
}

/** The type byte for a name, case-insensitively; throws USAGE for names the generation does not have. */
export function chunkTypeFromName(name: string, gen: EngineGeneration): number {
  const table = chunkTypeTable(gen);
  const i = table.findIndex((t) => t.toLowerCase() === name.toLowerCase());
  if (i < 0) {
    const m = /^unknown(\d+)$/i.exec(name);
    if (m) return Number(m[1]);
    throw new IoStoreError('USAGE', `unknown chunk type ${quote(name)} for ${gen} (expected one of ${table.join(', ')})`);
  }
  return i;
}

/** A decoded FIoChunkId: 8-byte id, 2-byte index (big-endian in UE5), padding byte, type byte. */
export interface ChunkId {
  /** Bytes 0-7 as a little-endian u64: a package id, container id or hash. */
  readonly id: bigint;
  readonly index: number;
  readonly pad: number;
  readonly type: number;
}

export function decodeChunkId(b: Uint8Array, at: number, gen: EngineGeneration): ChunkId {
  const view = new DataView(b.buffer, b.byteOffset + at, CHUNK_ID_SIZE);
  return {
    id: view.getBigUint64(0, true),
    index: view.getUint16(8, gen === 'UE4'),
    pad: view.getUint8(10),
    type: view.getUint8(11),
  };
}

export function encodeChunkId(c: ChunkId, gen: EngineGeneration): Uint8Array {
  // Written through a shared scratch view and copied: a view of the id's own buffer would move its 12 bytes off V8's
  // heap into an allocation of their own (a pack makes an id per file).
  ID_SCRATCH.setBigUint64(0, c.id, true);
  ID_SCRATCH.setUint16(8, c.index, gen === 'UE4');
  const out = new Uint8Array(CHUNK_ID_SIZE);
  for (let i = 0; i < 10; i++) out[i] = ID_SCRATCH.getUint8(i);
  out[10] = c.pad;
  out[11] = c.type;
  return out;
}
const ID_SCRATCH = new DataView(new ArrayBuffer(16));

/** The 24-hex-digit form used in listings: the 12 raw bytes in file order. */
export function chunkIdHex(b: Uint8Array, at = 0): string {
  return toHex(b.subarray(at, at + CHUNK_ID_SIZE));
}
