import { stat } from 'node:fs/promises';
import type { Codec } from '../codecs/codec.js';
import { defaultCodecs, encoderFor, type CodecRegistry, type EncoderSettings } from '../codecs/registry.js';
import type { OodleEncoderName } from '../codecs/oodle/index.js';
import { IoStoreError } from '../errors.js';
import { LATEST_TOC_VERSION } from '../toc/version.js';
import { quote } from '../util/quote.js';
import type { ContainerHeaderVersionName } from '../zen/container-header.js';
import type { ContainerWriterOptions } from './container-writer.js';
import type { ModLooseFile } from './mod-folder.js';

/** Settings both kinds of pack (from an unpack manifest, from a mod folder) choose the same way. */

/** How the chosen codec encodes: a level (Oodle, Zlib, Gzip) and the Oodle codec. */
export interface EncoderChoice {
  compressionLevel?: number;
  oodleCodec?: OodleEncoderName;
}

/** The container id written and where it came from: the unpack manifest, the output name, or the caller's option. */
export interface ContainerIdChoice {
  id: bigint;
  from: 'manifest' | 'name' | 'option';
}

/** Files that only a .pak can hold, and the mount point their paths are below. */
export interface CompanionFiles {
  mountPoint: string;
  files: ModLooseFile[];
}

/** The container-header version when the TOC version settles it (several engine releases share a TOC version). */
export function headerVersionForToc(v: number): ContainerHeaderVersionName | undefined {
  if (v <= 3) return 'Initial';
  if (v === 6) return 'NoExportInfo';
  if (v >= 9) return 'SoftPackageReferencesOffset';
  return undefined;
}

export function checkVersion(v: number): number {
  if (!(Number.isInteger(v) && v >= 1 && v <= LATEST_TOC_VERSION)) throw new IoStoreError('USAGE', `TOC version ${v} is not supported (1 to ${LATEST_TOC_VERSION})`);
  return v;
}

export function encryption(o: { aesKey?: Uint8Array }, guidHex: string | undefined): Partial<ContainerWriterOptions> {
  if (!o.aesKey) return {};
  return { aesKey: o.aesKey, encryptionKeyGuid: Uint8Array.from(Buffer.from(guidHex ?? '0'.repeat(32), 'hex')) };
}

export function partitioning(size: number | undefined): Partial<ContainerWriterOptions> {
  return size ? { partitionSize: size } : {};
}

/** The size of a file that must exist. */
export async function requireFile(file: string, missing: string): Promise<number> {
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new IoStoreError('BAD_VALUE', 'is not a file', { file });
    return st.size;
  } catch (e) {
    throw e instanceof IoStoreError ? e : new IoStoreError('NOT_FOUND', missing, { file });
  }
}

/** Methods a .pak may use but a container may not: the engine and retoc read no Gzip blocks in a .ucas. */
const PAK_ONLY_METHODS = new Set(['gzip']);

function containerEncoders(registry: CodecRegistry): string[] {
  return registry.names().filter((n) => registry.get(n)?.compress && n !== 'None' && !PAK_ONLY_METHODS.has(n.toLowerCase()));
}

/** Refuses, before any work, a method only a .pak may use. */
export function checkContainerMethod(requested: string | undefined): void {
  if (requested === undefined || !PAK_ONLY_METHODS.has(requested.toLowerCase())) return;
  throw new IoStoreError('USAGE', `--compression ${requested} is for .pak outputs: a container (.utoc) takes none, ${containerEncoders(defaultCodecs()).join(', ')}`);
}

export function chooseCodec(requested: string | undefined, sourceMethod: string | undefined, warnings: string[], o: EncoderChoice = {}): Codec | undefined {
  const registry = defaultCodecs();
  const want = requested ?? sourceMethod ?? 'None';
  const settings: EncoderSettings = {
    ...(o.compressionLevel !== undefined ? { level: o.compressionLevel } : {}),
    ...(o.oodleCodec !== undefined ? { oodleCodec: o.oodleCodec } : {}),
  };
  const configured = Object.keys(settings).length > 0;
  if (want.toLowerCase() === 'none') {
    if (configured) throw new IoStoreError('USAGE', `a compression level or Oodle codec needs a compression method (${requested !== undefined ? 'none was asked for' : 'the source is uncompressed'}: pass --compression oodle, zlib or gzip)`);
    return undefined;
  }
  checkContainerMethod(requested);
  const codec = registry.get(want);
  if (codec?.compress) return configured ? encoderFor(codec.name, settings) : codec;
  if (requested !== undefined) {
    throw new IoStoreError('USAGE', `cannot compress with ${quote(requested)} (this build encodes: ${containerEncoders(registry).join(', ')})`);
  }
  warnings.push(`the source used ${want}, which this build cannot encode: blocks are stored uncompressed (use --compression oodle, zlib or lz4 to compress)`);
  return undefined;
}
