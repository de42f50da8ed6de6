import { parseAesKey } from '../../crypto/aes.js';
import { IoStoreError } from '../../errors.js';
import { escapeControl, quote } from '../../util/quote.js';
import { packFolder, type PackOptions } from '../../pack/pack.js';
import { packPak, type PakPackOptions } from '../../pack/pak-pack.js';
import { encoderArgs, engineOption, threadsArg, withEncoderOptions, type EncoderArgs } from '../options.js';
import { parseContainerHeaderVersionName } from '../../zen/container-header.js';
import type { Command } from '../command.js';
import { formatBytes, renderJson } from '../format.js';
import { ExitCode } from '../io.js';
import { plural } from '../plural.js';
import { ProgressBar } from '../progress.js';
import { keepYoungGenerationSmall } from '../young-generation.js';
import { collectGarbage } from '../full-collection.js';
import { hasExtension } from '../../util/file-extension.js';

interface PackArgs extends EncoderArgs {
  folder: string;
  output: string;
  container?: string;
  like?: string;
  'container-header-version'?: string;
  engine?: string;
  'mount-point'?: string;
  compression?: string;
  'block-size'?: number;
  'aes-key'?: string;
  'partition-size'?: number;
  force?: boolean;
  'pak-version'?: number;
  'container-id'?: string;
  pak?: boolean;
  json?: boolean;
  quiet?: boolean;
  threads?: number;
  'encrypt-index'?: boolean;
  'encrypt-entries'?: boolean;
  encrypt?: boolean;
}

export const packCommand: Command<PackArgs> = {
  command: 'pack <folder> <output>',
  describe: 'Build a container (.utoc + .ucas + .pak) or a .pak from a folder written by unpack, or from a mod folder',
  builder: (y) =>
    withEncoderOptions(y)
      .positional('folder', { type: 'string', demandOption: true, describe: 'folder written by unpack (with iostore-manifest.json), or with --like a folder of zen or legacy packages and bulk files laid out below the mount point (e.g. Game/Content/Hero.uasset) or as unpack and to-legacy write them; each package is filed by its own name' })
      .usage('$0 pack <folder> <output>\n\nA .utoc output builds a container (its .ucas and companion .pak beside it). A .pak output builds a pak\narchive: from a folder written by unpack (its manifest gives paths, version, mount point, compression)\nor from a folder laid out below the mount point; pak versions 1 to 15 (--version UE4_27, --pak-version 11\nor --like <game .pak>), --compression none|zlib|gzip|lz4|oodle (--level, --oodle-codec), --aes-key (file data) and --encrypt-index.')
      .positional('output', { type: 'string', demandOption: true, describe: 'the .utoc to write (.ucas and .pak go beside it), or a .pak' })
      .option('container', { type: 'string', describe: 'which container to rebuild when the folder holds several' })
      .option('like', { type: 'string', describe: 'a .utoc of the target game: pack a plain mod folder with its version, block size, mount point and compression, and build the container header from the packages (for a .pak output: a .pak of the game, whose version, mount point, compression and key GUID are copied)' })
      .option('container-header-version', { type: 'string', describe: 'container-header layout when --like has no .ucas to read it from (e.g. SoftPackageReferences)' })
      .option('engine', engineOption('target: an engine release (UE4_27, UE5_4, UE6_0 ...: TOC, container-header and pak versions) or a TOC version number (default: the original container\'s or the --like one\'s)'))
      .option('mount-point', { type: 'string', describe: 'mount point of a plain folder packed without --like (default ../../../)' })
      .option('compression', { type: 'string', describe: 'none, oodle, zlib or lz4 (.pak: also gzip; default: the original method)' })
      .option('block-size', { type: 'number', describe: 'compression block size in bytes (default: the original, usually 65536)' })
      .option('aes-key', { type: 'string', describe: 'encrypt with this AES-256 key (ECB before TOC v10, CTR from v10; .pak: AES-ECB of the file data)' })
      .option('encrypt', { type: 'boolean', describe: 'keep the encryption of an unpacked container or pak (the default: it needs --aes-key); --no-encrypt writes it plain' })
      .option('encrypt-index', { type: 'boolean', describe: '.pak output: encrypt the index too (needs --aes-key)' })
      .option('encrypt-entries', { type: 'boolean', describe: '.pak output: encrypt file data (default with --aes-key; --no-encrypt-entries for the index only)' })
      .option('partition-size', { type: 'number', describe: 'split the .ucas into _sN files of at most this many bytes' })
      .option('force', { type: 'boolean', describe: 'allow overwriting the container the folder was unpacked from' })
      .option('container-id', { type: 'string', describe: 'container id to write: 0x and up to 16 hex digits, or "name" to derive it from the output name (default: the unpacked container\'s; from the output name for a plain folder)' })
      .option('pak-version', { type: 'number', describe: 'version of the companion .pak, or of the .pak output (default: the source container\'s .pak, else 11; 15 for TOC v10)' })
      .option('pak', { type: 'boolean', default: true, describe: 'write the companion .pak the engine needs to mount the container (--no-pak to skip)' })
      .option('threads', { type: 'number', describe: 'threads compressing chunk files ahead of the writer (0: all on the main thread; default: one per core (Zlib: on the thread pool, at most 3; other codecs: worker threads, for 32 MiB or more to compress; stored: worker threads copying files beside this one, one fewer than the cores, for 32 MiB or more); the output is the same' })
      .option('json', { type: 'boolean', describe: 'print a JSON summary' })
      .example('$0 pack out/ ~mods/MyMod_P.utoc', '')
      .example('$0 pack out/ rebuilt.utoc --compression zlib', '')
      .example('$0 pack out/ rebuilt.utoc --compression oodle --level 7', 'Oodle Kraken as the engine writes it, parsed optimally')
      .example('$0 pack MyMod/ ~mods/MyMod_P.utoc --like Paks/pakchunk0-Windows.utoc', 'a new mod as a patch container')
      .example('$0 pack MyMod/ MyMod_P.pak --version UE4_27 --compression zlib', 'a UE 4.27 pak of a folder below ../../../')
      .example('$0 pack out/ rebuilt.pak --aes-key 0x... --encrypt-index', 'an unpacked pak rebuilt, encrypted') as never,
  async run(args, io) {
    keepYoungGenerationSmall();
    if (hasExtension(args.output, '.pak')) return runPak(args, io);
    const o: PackOptions = {};
    if (args.container !== undefined) o.container = args.container;
    if (args.like !== undefined) o.like = args.like;
    if (args['container-header-version'] !== undefined) o.containerHeaderVersion = parseContainerHeaderVersionName(args['container-header-version']);
    if (args.engine !== undefined) {
      if (/^\d+$/.test(args.engine)) o.version = Number(args.engine);
      else o.engine = args.engine;
    }
    if (args['mount-point'] !== undefined) o.mountPoint = args['mount-point'];
    if (args.compression !== undefined) o.compression = args.compression;
    Object.assign(o, encoderArgs(args));
    if (args['block-size'] !== undefined) o.blockSize = args['block-size'];
    if (args['aes-key'] !== undefined) o.aesKey = parseAesKey(args['aes-key']);
    if (args.encrypt === false) o.noEncrypt = true;
    if (args['partition-size'] !== undefined) {
      if (!(args['partition-size'] > 0)) throw new IoStoreError('USAGE', '--partition-size must be a positive byte count');
      o.partitionSize = args['partition-size'];
    }
    if (args.force) o.force = true;
    if (args['pak-version'] !== undefined) o.pakVersion = args['pak-version'];
    if (args['container-id'] !== undefined) o.containerId = parseContainerIdArg(args['container-id']);
    if (args.pak === false) o.noPak = true;
    const threads = threadsArg(args.threads);
    if (threads !== undefined) o.threads = threads;
    const bar = new ProgressBar(io, 'pack', !args.quiet && !args.json && io.isTTY);
    o.onProgress = (p) => bar.update(p);
    o.betweenPhases = (_, chunks) => {
      if (chunks >= FULL_COLLECTION_MIN_CHUNKS) collectGarbage();
    };
    let r;
    try {
      r = await packFolder(args.folder, args.output, o);
    } finally {
      bar.done();
    }
    if (args.json) io.out(renderJson({ ...r, files: 1 + r.ucas.length + (r.pak ? 1 : 0), ok: true }));
    else if (!args.quiet) {
      io.out(`wrote ${r.utoc}, ${plural(r.ucas.length, '.ucas file')}${r.pak ? ' and the companion .pak' : ''}: ${plural(r.chunks, 'chunk')}, ${formatBytes(r.bytes)}, TOC v${r.version}, ${r.compression}\n`);
      if (r.packages) io.out(headerPackages(r.packages));
    }
    for (const w of r.warnings) io.err(`warning: ${escapeControl(w)}\n`);
    return ExitCode.Ok;
  },
};

/** The packages a new container header lists: one per line, the first few of them (--json lists them all). */
export function headerPackages(packages: readonly string[]): string {
  if (packages.length === 0) return 'container header lists no packages\n';
  const shown = packages.slice(0, SHOWN_PACKAGES).map((p) => `  ${p}\n`).join('');
  return `container header lists ${plural(packages.length, 'package')}:\n${shown}${packages.length > SHOWN_PACKAGES ? `  ... and ${packages.length - SHOWN_PACKAGES} more (--json lists them all)\n` : ''}`;
}
const SHOWN_PACKAGES = 10;

/** A pack of this many chunks or more runs a full collection after its plan and before its TOC (see collectGarbage). */
const FULL_COLLECTION_MIN_CHUNKS = 10_000;

function parseContainerIdArg(s: string): bigint | 'name' {
  if (s.toLowerCase() === 'name') return 'name';
  if (!/^0x[0-9a-f]{1,16}$/i.test(s)) throw new IoStoreError('USAGE', `--container-id ${quote(s)} is neither "name" nor 0x and 1 to 16 hex digits`);
  return BigInt(s);
}

/** `pack <folder> <out.pak>`. */
async function runPak(args: PackArgs, io: Parameters<(typeof packCommand)['run']>[1]): Promise<number> {
  const o: PakPackOptions = {};
  if (args.engine !== undefined) {
    if (/^\d+$/.test(args.engine)) o.pakVersion = Number(args.engine);
    else o.engine = args.engine;
  }
  if (args['pak-version'] !== undefined) o.pakVersion = args['pak-version'];
  if (args.like !== undefined) o.like = args.like;
  if (args.container !== undefined) o.container = args.container;
  if (args['mount-point'] !== undefined) o.mountPoint = args['mount-point'];
  if (args.compression !== undefined) o.compression = args.compression;
  Object.assign(o, encoderArgs(args));
  if (args['block-size'] !== undefined) o.blockSize = args['block-size'];
  if (args['aes-key'] !== undefined) o.aesKey = parseAesKey(args['aes-key']);
  if (args['encrypt-index']) o.encryptIndex = true;
  if (args.encrypt === false) o.noEncrypt = true;
  if (args['encrypt-entries'] !== undefined) o.encryptEntries = args['encrypt-entries'];
  if (args.force) o.force = true;
  const threads = threadsArg(args.threads);
  if (threads !== undefined) o.threads = threads;
  for (const opt of ['partition-size', 'container-header-version'] as const) {
    if (args[opt] !== undefined) throw new IoStoreError('USAGE', `--${opt} applies to .utoc outputs, not .pak`);
  }
  const bar = new ProgressBar(io, 'pack', !args.quiet && !args.json && io.isTTY);
  o.onProgress = (p) => bar.update(p);
  let r;
  try {
    r = await packPak(args.folder, args.output, o);
  } finally {
    bar.done();
  }
  if (args.json) io.out(renderJson({ ...r, files: r.entries, bytes: r.rawBytes, ok: true }));
  else if (!args.quiet) {
    const enc = [r.encryptedEntries ? 'file data' : '', r.encryptedIndex ? 'index' : ''].filter(Boolean).join(' and ');
    io.out(`wrote ${r.pak}: ${plural(r.entries, 'file')}, ${formatBytes(r.rawBytes)} -> ${formatBytes(r.size)}, pak v${r.version}, ${r.compression}${enc ? `, ${enc} encrypted` : ''}, mount point ${r.mountPoint}\n`);
  }
  for (const w of r.warnings) io.err(`warning: ${escapeControl(w)}\n`);
  return ExitCode.Ok;
}
