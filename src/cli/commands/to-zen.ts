import { parseAesKey } from '../../crypto/aes.js';
import { toZen, type ToZenOptions } from '../../pack/to-zen.js';
import { parseContainerHeaderVersionName } from '../../zen/container-header.js';
import type { Command } from '../command.js';
import { formatBytes, renderJson } from '../format.js';
import { ExitCode } from '../io.js';
import { threadsArg } from '../options.js';
import { ProgressBar } from '../progress.js';

interface ToZenArgs {
  inputs: string[];
  like?: string;
  version?: string;
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
    y
      .positional('inputs', { type: 'string', array: true, demandOption: true, describe: 'legacy .uasset/.umap files (with .uexp and bulk files beside them), .ushaderbytecode shader libraries, folders laid out below the mount point, or legacy .pak files; the last one is the .utoc to write' })
      .option('version', { type: 'string', describe: 'target engine release, UE4_26 to UE6_0 (TOC, container-header and zen header versions)' })
      .option('like', { type: 'string', describe: 'a .utoc of the target game: copy its TOC and container-header versions, block size, mount point, compression and alignment' })
      .option('container-header-version', { type: 'string', describe: 'container-header layout when --like has no .ucas to read it from' })
      .option('mount-point', { type: 'string', describe: 'mount point of the new container (default: the --like one, else ../../../)' })
      .option('project', { type: 'string', describe: 'project folder for /Game/ packages given as single files (default: the --like container\'s, else Game)' })
      .option('mount', { type: 'string', describe: 'long package path (e.g. /Game/Weapons) of loose UE4 packages, which name no package and lie below no Content folder' })
      .option('compression', { type: 'string', describe: 'none, zlib or lz4 (default: the --like container\'s method when this build can encode it, else none)' })
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
    if (output === undefined || all.length === 0 || !/\.utoc$/i.test(output)) {
      io.err('iostore: to-zen takes one or more inputs and then the .utoc to write\n');
      return ExitCode.BadInput;
    }
    const o: ToZenOptions = {};
    if (args.like !== undefined) o.like = args.like;
    if (args.version !== undefined) o.engine = args.version;
    if (args['container-header-version'] !== undefined) o.containerHeaderVersion = parseContainerHeaderVersionName(args['container-header-version']);
    if (args['mount-point'] !== undefined) o.mountPoint = args['mount-point'];
    if (args.project !== undefined) o.projectName = args.project;
    if (args.mount !== undefined) o.mount = args.mount;
    if (args.compression !== undefined) o.compression = args.compression;
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
    if (args.json) io.out(renderJson(r));
    else if (!args.quiet) {
      io.out(`converted ${r.converted} legacy package(s); wrote ${r.utoc}, ${r.ucas.length} .ucas file(s)${r.pak ? ' and the companion .pak' : ''}: ${r.chunks} chunks, ${formatBytes(r.bytes)}, TOC v${r.version}, ${r.compression}\n`);
      if (r.packages) io.out(`container header lists ${r.packages.length} package(s): ${r.packages.join(', ')}\n`);
      for (const l of r.shaderLibraries ?? []) io.out(`shader library ${l.path}: ${l.shaders} shaders in ${l.groups} ShaderCode chunk(s), ${l.rawGroups} stored uncompressed\n`);
    }
    for (const w of r.warnings) io.err(`warning: ${w}\n`);
    for (const f of r.failures) io.err(`error: ${f.message.startsWith(f.path) ? f.message : `${f.path}: ${f.message}`}\n`);
    if (r.failures.length > 0 && !args.json) io.err(`${r.failures.length} failure(s); the other packages were converted\n`);
    return r.failures.length > 0 ? ExitCode.Partial : ExitCode.Ok;
  },
};
