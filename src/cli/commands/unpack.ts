import { IoStoreError } from '../../errors.js';
import { parseEngineVersion } from '../../toc/engine.js';
import { unpack, type UnpackOptions } from '../../unpack/unpack.js';
import type { Command } from '../command.js';
import { formatBytes, limitedLines, renderJson, renderTable } from '../format.js';
import { shownPath } from '../../util/temp-names.js';
import { ExitCode } from '../io.js';
import { plural, sources } from '../plural.js';
import { escapeControl } from '../../util/quote.js';
import { cliCodecs, keyRing, withKeyOptions, type KeyArgs } from '../keys.js';
import { ProgressBar } from '../progress.js';
import { engineOption, threadsArg } from '../options.js';
import { hintFilter } from '../filter-hint.js';
import { keepOldGenerationSmall, keepYoungGenerationSmall } from '../young-generation.js';
import { isShortRun, skipOptimizingCompilerInWorkers } from '../short-run.js';
import { startWorkersAhead } from '../workers-ahead.js';
import { hasExtension } from '../../util/file-extension.js';

interface UnpackArgs extends KeyArgs {
  threads?: number;
  verify?: boolean;
  paths: string[];
  filter?: string;
  type?: string;
  'dry-run'?: boolean;
  jobs?: number;
  engine?: string;
  json?: boolean;
  quiet?: boolean;
}

export const unpackCommand: Command<UnpackArgs> = {
  command: 'unpack <paths..>',
  describe: 'Write every chunk of containers (.utoc files, .pak files or a Paks folder) to a folder, with a manifest for pack',
  builder: (y) =>
    withKeyOptions(y)
      .usage('$0 unpack <input..> <outdir>\n\nInputs are .utoc and .pak files and/or folders (searched recursively, e.g. a game\'s Paks folder);\npatch containers and paks (_N_P) override base ones, higher N over lower. Pak files go under their\nmount-point paths, beside the packages; a path written by a container stays the container\'s. The\nlast path is the output folder.')
      .positional('paths', { type: 'string', array: true, demandOption: true, describe: 'input(s) then the output folder' })
      .option('filter', { type: 'string', describe: 'only chunks whose output path matches this glob (unnamed chunks: _chunks/<Type>/<id>.bin)' })
      .option('type', { type: 'string', describe: 'only chunks of this type (ExportBundleData, BulkData, ...)' })
      .option('dry-run', { type: 'boolean', describe: 'list what would be written, write nothing' })
      .option('verify', { type: 'boolean', describe: 'hash every chunk as it is written; one that does not match its stored hash is reported and not kept' })
      .option('jobs', { type: 'number', default: 8, describe: 'accepted for older scripts (pak files are now written in their order in the pak on the main thread)' })
      .option('threads', { type: 'number', describe: 'worker threads beside the main one, each reading, decoding and writing whole chunks (0: the main thread alone; default: one per other core when 16 MiB or more of blocks need decoding, else one for 1,024 chunks or more; a .pak: one for 1,024 or more files stored as they are)' })
      .option('engine', engineOption('engine release (e.g. UE4_27) when the TOC version cannot tell'))
      .option('json', { type: 'boolean', describe: 'print a JSON summary' })
      .example('$0 unpack Game/Content/Paks out/', 'the whole game, patches applied')
      .example('$0 unpack pakchunk0-Windows.utoc out/ --filter "**/*.uasset" --aes-key 0x...', '')
      .example('$0 unpack MyMod_P.pak out/ --keys keys.json', 'a .pak, decrypted with the key of its GUID') as never,
  async run(args, io) {
    keepYoungGenerationSmall();
    keepOldGenerationSmall();
    // One small .utoc: a short run, without TurboFan once its worker has loaded.
    if (args.paths.length === 2 && hasExtension(args.paths[0]!, '.utoc') && isShortRun(args.paths[0]!)) skipOptimizingCompilerInWorkers();
    const options: UnpackOptions = { keys: await keyRing(args), jobs: args.jobs ?? 8, codecs: await cliCodecs(args) };
    const threads = threadsArg(args.threads);
    if (threads !== undefined) options.threads = threads;
    if (args.filter !== undefined) options.filter = args.filter;
    if (args.type !== undefined) options.type = args.type;
    if (args.engine !== undefined) options.engine = parseEngineVersion(args.engine);
    if (args['dry-run']) options.dryRun = true;
    if (args.verify) options.verify = true;
    const showBar = !args.quiet && !args.json && io.isTTY;
    const bar = new ProgressBar(io, 'unpack', showBar);
    // No callback when nothing is drawn: the library then makes no progress object per chunk on the calling thread.
    if (showBar) options.onProgress = (p) => bar.update(p);
    if (args.paths.length < 2) throw new IoStoreError('USAGE', 'give at least one input and then the output folder');
    const inputs = args.paths.slice(0, -1);
    const outdir = args.paths[args.paths.length - 1]!;
    // Only .utoc inputs (a folder or a .pak is searched or opened first): workers load while the TOCs are read.
    const ahead = !args['dry-run'] && inputs.every((p) => hasExtension(p, '.utoc')) ? startWorkersAhead('write', inputs, threads) : undefined;
    if (ahead) options.workersAhead = ahead;
    let result;
    try {
      result = await unpack(inputs, outdir, options);
    } finally {
      bar.done();
      void ahead?.discard();
    }
    const partial = result.failures.length > 0;
    hintFilter(io, args.filter, result.planned.length + result.chunksWritten);
    if (args.json) {
      const containers = result.containers.map((c) => ({ ...c, kind: hasExtension(c.name, '.pak') ? 'pak' : 'container' }));
      io.out(renderJson({ ...result, containers, planned: args['dry-run'] ? result.planned : undefined, chunks: result.chunksWritten, bytes: result.bytesWritten, ok: !partial }));
    } else {
      if (args['dry-run']) {
        const planned = Array.from(result.planned);
        io.out(renderTable(['container', '#', 'type', 'size', 'path'], planned.map((p) => [p.container, String(p.index), p.type, String(p.size), p.path]), ['left', 'right', 'left', 'right', 'left']));
        io.out(`${plural(planned.length, 'chunk')}, ${formatBytes(planned.reduce((a, p) => a + p.size, 0))} would be written to ${outdir}\n`);
      } else if (!args.quiet) {
        io.out(`wrote ${plural(result.chunksWritten, 'chunk')} (${formatBytes(result.bytesWritten)}) from ${sources(result.containers.map((c) => c.name))} to ${outdir}\n`);
        for (const c of result.containers) {
          io.out(`  ${c.name}: ${c.written} written${c.overridden ? `, ${c.overridden} overridden by ${c.overriddenBy.join(', ')}` : ''}\n`);
        }
      }
      for (const w of result.warnings) io.err(`warning: ${escapeControl(w)}\n`);
      for (const l of limitedLines(result.failures.map((f) => `${escapeControl(f.message)}${f.path ? ` (${escapeControl(shownPath(f.path))})` : ''}`), 'error: ')) io.err(l);
      if (partial) io.err(`${plural(result.failures.length, 'failure')}; the other chunks were written\n`);
    }
    return partial ? ExitCode.Partial : ExitCode.Ok;
  },
};
