import type { Argv, OptionSpec } from './args.js';
import { IoStoreError } from '../errors.js';
import { probeOpen, probePath, type OpenedFile } from '../util/path-probe.js';
import { hasExtension } from '../util/file-extension.js';
import { parseAesKey } from '../crypto/aes.js';
import { parseEngineVersion, type EngineVersion } from '../toc/engine.js';
import { readToc, type IoStoreToc, type ReadTocOptions } from '../toc/toc.js';
import { openToc, readTocBytes } from '../toc/read-file.js';
import { guidHex, parseTocHeader } from '../toc/header.js';
import type { KeyRing } from '../mount/keys.js';
import { OODLE_ENCODERS } from '../codecs/encoder-names.js';
import type { OodleEncoderName } from '../codecs/oodle/index.js';

/** Options every command that opens a container accepts. */
export interface ContainerArgs {
  'aes-key'?: string;
  keys?: string;
  engine?: string;
  verbose?: boolean;
}

/**
 * `--engine`, the one name of the engine release across commands (`--version` answers too: the converters and pack
 * had called it that; `iostore --version` alone still prints the tool's version).
 */
export function engineOption(describe: string): OptionSpec {
  return { type: 'string', aliases: ['version'], describe };
}

export function withContainerOptions(y: Argv): Argv {
  return y
    .option('aes-key', {
      type: 'string',
      describe: 'AES-256 key of an encrypted container: 64 hex digits (0x optional) or base64',
    })
    .option('keys', { type: 'string', describe: 'JSON file of encryption-key GUID -> AES key, for containers with different keys (as unpack takes it)' })
    .option('engine', engineOption('engine release, e.g. UE4_27 or UE5_3; overrides what the TOC version implies (chunk-type numbering)'));
}

export function tocOptions(args: ContainerArgs): ReadTocOptions {
  const o: ReadTocOptions = {};
  if (args['aes-key']) o.aesKey = parseAesKey(args['aes-key']);
  if (args.engine) o.engine = parseEngineVersion(args.engine) satisfies EngineVersion;
  return o;
}

/**
 * Opens a .utoc with the key its key GUID names in `--keys` (or `--aes-key`, the default key): the directory index of
 * an encrypted container needs it. Without `--keys`, as openToc with the options.
 */
export async function openTocWithKeys(file: string, args: ContainerArgs, opened?: OpenedFile): Promise<IoStoreToc> {
  if (!args.keys) return openToc(file, tocOptions(args), opened);
  const bytes = await readTocBytes(file, { opened });
  const ring = await keyRingOf(args);
  const key = ring.get(guidHex(parseTocHeader(bytes, file).encryptionKeyGuid));
  return readToc(bytes, { source: file, ...tocOptions(args), ...(key ? { aesKey: key } : {}) });
}

/** What opens a pak: its key by GUID from `--keys`, else `--aes-key`. */
export async function pakKeys(args: ContainerArgs): Promise<ContainerArgs | KeyRing> {
  return args.keys ? keyRingOf(args) : args;
}

/** The key ring of `--keys` and `--aes-key` (loaded only when a run names a key file). */
async function keyRingOf(args: ContainerArgs): Promise<KeyRing> {
  const { KeyRing } = await import('../mount/keys.js');
  const ring = await KeyRing.fromFile(args.keys!);
  if (args['aes-key']) ring.add(parseAesKey(args['aes-key']));
  return ring;
}

/** `--threads N`: a whole number from 0 (all on the main thread) to 64; undefined leaves the library's default. */
export function threadsArg(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > 64) throw new IoStoreError('USAGE', `--threads must be a whole number from 0 to 64, not ${value}`);
  return value;
}

/**
 * The one file of a command given a single path that is not a folder (whatever its name: the parser says what is
 * wrong with it), or undefined when the inputs are several or include a folder.
 */
export function singleFile(paths: readonly string[]): string | undefined {
  if (paths.length !== 1) return undefined;
  return probePath(paths[0]!, 1)?.folder ? undefined : paths[0];
}

/** singleFile's file, whether it is smaller than `bound` bytes, and the file as its probe left it open (`opened`). */
export interface SingleInput {
  file: string;
  below: boolean;
  opened: OpenedFile | undefined;
}

/**
 * singleFile and whether that file is below `bound` (isShortRun's question) by one probe of it, which leaves the
 * file open for its reader (`openTocWithKeys`' `opened`): a short `list` or `info` had opened its .utoc three times.
 * The caller closes `opened` when done (a reader that took it closed it already).
 */
export function singleInput(paths: readonly string[], bound: number): SingleInput | undefined {
  if (paths.length !== 1) return undefined;
  const probe = probeOpen(paths[0]!, bound);
  if (probe?.folder) return undefined;
  return { file: paths[0]!, below: probe?.below ?? false, opened: probe?.opened };
}

/** A path the commands treat as a pak archive rather than a container. */
export const isPakPath = (p: string): boolean => hasExtension(p, '.pak');

/** Options of the commands that compress (pack, to-zen): the level and, for Oodle, the codec. */
export interface EncoderArgs {
  level?: number;
  'oodle-codec'?: string;
}

export function withEncoderOptions(y: Argv): Argv {
  return y
    .option('level', { type: 'number', describe: 'compression level, 1 (fastest) to 9 (smallest): Oodle (default 4; 6-9 parse optimally), Zlib and Gzip (default 6)' })
    .option('oodle-codec', { type: 'string', describe: 'with Oodle compression: kraken (default, what the engine writes containers with), mermaid (faster to decode, what it compresses shader code with), selkie or leviathan' });
}

/** The level and Oodle codec given, checked, as the pack and to-zen options take them. */
export function encoderArgs(args: EncoderArgs): { compressionLevel?: number; oodleCodec?: OodleEncoderName } {
  const out: { compressionLevel?: number; oodleCodec?: OodleEncoderName } = {};
  if (args.level !== undefined) {
    if (!Number.isInteger(args.level) || args.level < 1 || args.level > 9) throw new IoStoreError('USAGE', `--level must be a whole number from 1 to 9, not ${args.level}`);
    out.compressionLevel = args.level;
  }
  if (args['oodle-codec'] !== undefined) {
    const c = args['oodle-codec'].toLowerCase();
    if (!OODLE_ENCODERS.includes(c as OodleEncoderName)) throw new IoStoreError('USAGE', `--oodle-codec must be ${OODLE_ENCODERS.join(', ')}, not ${JSON.stringify(args['oodle-codec'])}`);
    out.oodleCodec = c as OodleEncoderName;
  }
  return out;
}
