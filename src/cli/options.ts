import type { Argv, OptionSpec } from './args.js';
import { statSync } from 'node:fs';
import { IoStoreError } from '../errors.js';
import { parseAesKey } from '../crypto/aes.js';
import { parseEngineVersion, type EngineVersion } from '../toc/engine.js';
import type { ReadTocOptions } from '../toc/toc.js';

/** Options every command that opens a container accepts. */
export interface ContainerArgs {
  'aes-key'?: string;
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
    .option('engine', engineOption('engine release, e.g. UE4_27 or UE5_3; overrides what the TOC version implies (chunk-type numbering)'));
}

export function tocOptions(args: ContainerArgs): ReadTocOptions {
  const o: ReadTocOptions = {};
  if (args['aes-key']) o.aesKey = parseAesKey(args['aes-key']);
  if (args.engine) o.engine = parseEngineVersion(args.engine) satisfies EngineVersion;
  return o;
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
  try {
    return statSync(paths[0]!).isDirectory() ? undefined : paths[0];
  } catch {
    return paths[0];
  }
}

/** A path the commands treat as a pak archive rather than a container. */
export const isPakPath = (p: string): boolean => /\.pak$/i.test(p);
