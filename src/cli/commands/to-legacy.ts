import { toLegacy, type ToLegacyOptions } from '../../convert/to-legacy.js';
import { IoStoreError } from '../../errors.js';
import { parseEngineVersion } from '../../toc/engine.js';
import type { Command } from '../command.js';
import { formatBytes, limitedLines, renderJson, renderTable } from '../format.js';
import { escapeControl } from '../../util/quote.js';
import { ExitCode } from '../io.js';
import { plural } from '../plural.js';
import { cliCodecs, keyRing, withKeyOptions, type KeyArgs } from '../keys.js';
import { engineOption, threadsArg } from '../options.js';
import { ProgressBar } from '../progress.js';
import { hintFilter } from '../filter-hint.js';

interface ToLegacyArgs extends KeyArgs {
  paths: string[];
  global?: string;
  engine?: string;
  filter?: string;
  'dry-run'?: boolean;
  jobs?: number;
  threads?: number;
  json?: boolean;
  quiet?: boolean;
}

export const toLegacyCommand: Command<ToLegacyArgs> = {
  command: 'to-legacy <paths..>',
  describe: 'Convert zen packages (containers, a Paks folder, a folder written by unpack or .uzenasset files) to legacy .uasset/.uexp, and shader libraries to their legacy .ushaderbytecode form',
  builder: (y) =>
    withKeyOptions(y)
      .usage(
        "$0 to-legacy <input..> <outdir>\n\nInputs are .utoc files, folders (a game's Paks folder, patches applied as in unpack; or a folder unpack wrote, whose files are converted where they lie, with its _chunks/ScriptObjects chunk naming script imports) and zen package files (.uzenasset, or a zen .uasset/.umap as unpack writes it, with its .ubulk beside it). Each package is written as X.uasset (or .umap) + X.uexp at the path unpack uses; bulk data and other chunks as unpack writes them.",
      )
      .positional('paths', { type: 'string', array: true, demandOption: true, describe: 'input(s) then the output folder' })
      .option('global', { type: 'string', describe: 'global.utoc whose script objects name /Script/... imports (default: found among or beside the inputs)' })
      .option('engine', engineOption('engine release (e.g. UE5_6) for unversioned packages whose container does not settle it'))
      .option('filter', { type: 'string', describe: 'only outputs whose path matches this glob (packages: their .uasset/.umap path)' })
      .option('dry-run', { type: 'boolean', describe: 'convert in memory and report, write nothing' })
      .option('jobs', { type: 'number', default: 8, describe: 'accepted for symmetry with unpack; packages are converted in order' })
      .option('threads', { type: 'number', describe: '1 or more: files written by a writer thread beside the conversion (for many files on more than one core); 0 (default): all on the main thread' })
      .option('json', { type: 'boolean', describe: 'print a JSON summary' })
      .example('$0 to-legacy Game/Content/Paks legacy/', 'every package of a game, imports named from the whole folder and its global.utoc')
      .example('$0 to-legacy game/ legacy/', 'the folder `iostore unpack` wrote: its zen packages converted, its other files copied')
      .example('$0 to-legacy T_Test.uzenasset out/ --version UE5_5 --global global.utoc', 'one package file') as never,
  async run(args, io) {
    if (args.paths.length < 2) throw new IoStoreError('USAGE', 'give at least one input and then the output folder');
    const options: ToLegacyOptions = { keys: await keyRing(args), codecs: await cliCodecs(args), jobs: args.jobs ?? 8 };
    const threads = threadsArg(args.threads);
    if (threads !== undefined) options.threads = threads;
    if (args.global !== undefined) options.global = args.global;
    if (args.engine !== undefined) options.engine = parseEngineVersion(args.engine);
    if (args.filter !== undefined) options.filter = args.filter;
    if (args['dry-run']) options.dryRun = true;
    const bar = new ProgressBar(io, 'to-legacy', !args.quiet && !args.json && io.isTTY);
    options.onProgress = (p) => bar.update({ chunksDone: p.done, chunksTotal: p.total, bytesDone: p.bytesDone, bytesTotal: p.bytesTotal });
    const inputs = args.paths.slice(0, -1);
    const outdir = args.paths[args.paths.length - 1]!;
    const started = performance.now();
    let result;
    try {
      result = await toLegacy(inputs, outdir, options);
    } finally {
      bar.done();
    }
    const seconds = (performance.now() - started) / 1000;
    const partial = result.failures.length > 0;
    hintFilter(io, args.filter, result.planned.length);
    if (args.json) {
      io.out(renderJson({ ...result, planned: args['dry-run'] ? result.planned : undefined, seconds, files: result.filesWritten, bytes: result.bytesWritten, ok: !partial }));
    } else {
      if (args['dry-run']) {
        io.out(renderTable(['kind', 'size', 'path'], result.planned.map((p) => [p.kind, String(p.size), p.path]), ['left', 'right', 'left']));
        io.out(`${plural(result.packages, 'package')} and ${plural(result.otherChunks, 'other chunk')} would be written to ${outdir}\n`);
      } else if (!args.quiet) {
        io.out(`converted ${plural(result.packages, 'package')} and wrote ${plural(result.otherChunks, 'other chunk')} (${plural(result.filesWritten, 'file')}, ${formatBytes(result.bytesWritten)}) to ${outdir} in ${seconds.toFixed(2)} s\n`);
        io.out(result.global ? `  script imports named from ${result.global}\n` : '  no global container: script imports stay unnamed (--global)\n');
        for (const l of result.shaderLibraries) io.out(`  shader library ${l.path}: ${plural(l.shaders, 'shader')} from ${plural(l.groups, 'ShaderCode chunk')}, ${l.rawShaders} stored uncompressed\n`);
      }
      for (const w of result.warnings) io.err(`warning: ${escapeControl(w)}\n`);
      for (const l of limitedLines(result.failures.map((f) => escapeControl(f.message.includes(f.path) ? f.message : `${f.path}: ${f.message}`)), 'error: ')) io.err(l);
      if (partial) io.err(`${plural(result.failures.length, 'failure')}; the other packages were converted\n`);
    }
    return partial ? ExitCode.Partial : ExitCode.Ok;
  },
};
