import { parseAesKey } from '../../crypto/aes.js';
import { toZen, type ToZenOptions } from '../../pack/to-zen.js';
import { parseContainerHeaderVersionName } from '../../zen/container-header.js';
import type { Command } from '../command.js';
import { formatBytes, limitedLines, renderJson } from '../format.js';
import { escapeControl } from '../../util/quote.js';
import { ExitCode } from '../io.js';
import { plural } from '../plural.js';
import { encoderArgs, engineOption, threadsArg, withEncoderOptions, type EncoderArgs } from '../options.js';
import { ProgressBar } from '../progress.js';
import { headerPackages } from './pack.js';
import { hasExtension } from '../../util/file-extension.js';

interface ToZenArgs extends EncoderArgs {
  inputs: string[];
  like?: string;
  engine?: string;
  'container-header-version'?: string;
  'mount-point'?: string;
  project?: string;
  mount?: string;
  compression?: string;
  'aes-key'?: string;
  pak?: boolean;
  json?: boolean;
  quiet?: boolean;
  threads?: number;
}

export const toZenCommand: Command<ToZenArgs> = {
  command: 'to-zen <inputs..>',
  describe: 'Convert legacy packages (.uasset/.umap + .uexp, folders, legacy .pak files) and shader libraries (.ushaderbytecode) to a zen container (.utoc + .ucas + .pak)',
  builder: (y) =>
    withEncoderOptions(y)
      .positional('inputs', { type: 'string', array: true, demandOption: true, describe: 'legacy .uasset/.umap files (with .uexp and bulk files beside them), .ushaderbytecode shader libraries, folders laid out below the mount point, or legacy .pak files; the last one is the .utoc to write' })
      .option('engine', engineOption('target engine release, UE4_26 to UE6_0 (TOC, container-header and zen header versions)'))
      .option('like', { type: 'string', describe: 'a .utoc of the target game: copy its TOC and container-header versions, block size, mount point, compression and alignment' })
      .option('container-header-version', { type: 'string', describe: 'container-header layout when --like has no .ucas to read it from' })
      .option('mount-point', { type: 'string', describe: 'mount point of the new container (default: the --like one, else ../../../)' })
      .option('project', { type: 'string', describe: 'project folder for /Game/ packages given as single files (default: the --like container\'s, else Game)' })
      .option('mount', { type: 'string', describe: 'long package path (e.g. /Game/Weapons) of loose UE4 packages, which name no package and lie below no Content folder' })
      .option('compression', { type: 'string', describe: 'none, oodle, zlib or lz4 (default: the --like container\'s method, else none); shader code is compressed with Oodle whatever the container\'s method, as the engine does' })
      .option('aes-key', { type: 'string', describe: 'AES-256 key: decrypts encrypted input .pak files and encrypts the output' })
      .option('pak', { type: 'boolean', default: true, describe: 'write the companion .pak the engine needs to mount the container (--no-pak to skip)' })
      .option('threads', { type: 'number', describe: 'worker threads hashing and compressing chunks ahead of the writer' })
      .option('json', { type: 'boolean', describe: 'print a JSON summary' })
      .example('$0 to-zen Saved/Cooked/Windows/MyGame/Content/Mod ~mods/Mod_P.utoc --like Paks/pakchunk0-Windows.utoc', 'a cooked mod folder as a patch container')
      .example('$0 to-zen MyMod.pak ~mods/MyMod_P.utoc --version UE5_4', 'an editor-made legacy .pak')
      .example('$0 to-zen Hero.uasset Hero_P.utoc --version UE5_5 --compression zlib', '')
      .example('$0 to-zen Edited/ Mod_P.utoc --version UE4_27 --mount /Game/Weapons', 'loose UE4 packages: their folder stands for /Game/Weapons') as never,
  async run(args, io) {
    const all = [...args.inputs];
    const output = all.pop();
    if (output === undefined || all.length === 0 || !hasExtension(output, '.utoc')) {
      io.err('iostore: to-zen takes one or more inputs and then the .utoc to write\n');
      return ExitCode.BadInput;
    }
    const o: ToZenOptions = {};
    if (args.like !== undefined) o.like = args.like;
    if (args.engine !== undefined) o.engine = args.engine;
    if (args['container-header-version'] !== undefined) o.containerHeaderVersion = parseContainerHeaderVersionName(args['container-header-version']);
    if (args['mount-point'] !== undefined) o.mountPoint = args['mount-point'];
    if (args.project !== undefined) o.projectName = args.project;
    if (args.mount !== undefined) o.mount = args.mount;
    if (args.compression !== undefined) o.compression = args.compression;
    Object.assign(o, encoderArgs(args));
    if (args['aes-key'] !== undefined) o.aesKey = parseAesKey(args['aes-key']);
    if (args.pak === false) o.noPak = true;
    const threads = threadsArg(args.threads);
    if (threads !== undefined) o.threads = threads;
    const bar = new ProgressBar(io, 'to-zen', !args.quiet && !args.json && io.isTTY);
    o.onProgress = (p) => bar.update(p);
    let r;
    try {
      r = await toZen(all, output, o);
    } finally {
      bar.done();
    }
    if (args.json) io.out(renderJson({ ...r, files: 1 + r.ucas.length + (r.pak ? 1 : 0), ok: r.failures.length === 0 }));
    else if (!args.quiet) {
      io.out(`converted ${plural(r.converted, 'legacy package')}; wrote ${r.utoc}, ${plural(r.ucas.length, '.ucas file')}${r.pak ? ' and the companion .pak' : ''}: ${plural(r.chunks, 'chunk')}, ${formatBytes(r.bytes)}, TOC v${r.version}, ${r.compression}\n`);
      if (r.packages) io.out(headerPackages(r.packages));
      for (const l of r.shaderLibraries ?? []) io.out(`shader library ${l.path}: ${plural(l.shaders, 'shader')} in ${plural(l.groups, 'ShaderCode chunk')}, ${l.compressedGroups} Oodle-compressed, ${l.rawGroups} stored uncompressed\n`);
    }
    for (const w of r.warnings) io.err(`warning: ${escapeControl(w)}\n`);
    for (const l of limitedLines(r.failures.map((f) => escapeControl(f.message.startsWith(f.path) ? f.message : `${f.path}: ${f.message}`)), 'error: ')) io.err(l);
    if (r.failures.length > 0 && !args.json) io.err(`${plural(r.failures.length, 'failure')}; the other packages were converted\n`);
    return r.failures.length > 0 ? ExitCode.Partial : ExitCode.Ok;
  },
};
