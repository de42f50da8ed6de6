import { listChunks, summarizeByType, type ChunkRow } from '../../toc/listing.js';
import { openToc } from '../../toc/read-file.js';
import type { Command } from '../command.js';
import { formatBytes, formatRatio, renderCsv, renderJson, renderTable } from '../format.js';
import { ExitCode, type CliIO } from '../io.js';
import { discoverContainers } from '../../unpack/mount.js';
import { singleFile, tocOptions, withContainerOptions, type ContainerArgs } from '../options.js';

interface ListArgs extends ContainerArgs {
  paths: string[];
  json?: boolean;
  csv?: boolean;
  type?: string;
  filter?: string;
  sort?: 'index' | 'size' | 'path' | 'type';
  'by-type'?: boolean;
}

const COLUMNS = ['index', 'id', 'type', 'path', 'size', 'storedSize', 'blocks', 'hash'] as const;

export const listCommand: Command<ListArgs> = {
  command: 'list <paths..>',
  describe: 'List the chunks of .utoc containers: id, type, path, sizes, hash',
  builder: (y) =>
    withContainerOptions(y)
      .usage('$0 list <input..>\n\nInputs are .utoc files and/or folders searched for them (a game\'s Paks folder). Several containers\nlist together, each row naming its container.')
      .positional('paths', { type: 'string', array: true, demandOption: true, describe: '.utoc file(s) or folder(s)' })
      .option('json', { type: 'boolean', describe: 'print JSON: { file, chunks: [...] } (several containers: { files, chunks: [{ container, ... }] })' })
      .option('csv', { type: 'boolean', describe: 'print CSV' })
      .option('type', { type: 'string', describe: 'only chunks of this type (e.g. ExportBundleData, BulkData)' })
      .option('filter', { type: 'string', describe: 'only chunks whose path matches this glob (e.g. "**/*.ubulk")' })
      .option('sort', { choices: ['index', 'size', 'path', 'type'] as const, default: 'index' as const, describe: 'row order' })
      .option('by-type', { type: 'boolean', describe: 'summarise by chunk type: count, raw and stored bytes' })
      .conflicts('json', 'csv')
      .example('$0 list game.utoc --filter "**/Maps/**" --sort size', '')
      .example('$0 list game.utoc --by-type', '')
      .example('$0 list Game/Content/Paks --filter "**/Hero*"', 'which containers hold a file') as never,
  async run(args, io) {
    const query = { sort: args.sort ?? 'index' } as Parameters<typeof listChunks>[1] & object;
    if (args.type !== undefined) query.type = args.type;
    if (args.filter !== undefined) query.filter = args.filter;
    const file = singleFile(args.paths);
    if (file === undefined) return listMany(args, query, io);
    const toc = await openToc(file, tocOptions(args));
    const rows = listChunks(toc, query);
    if (toc.directoryIndexError && !args.json && !args.csv) io.err(`warning: ${toc.directoryIndexError.message}\n`);

    if (args['by-type']) return printByType(args, io, rows, { file: toc.source });

    if (args.json) {
      io.out(renderJson({ file: toc.source, mountPoint: toc.directoryIndex?.mountPoint ?? null, count: rows.length, chunks: rows }));
    } else if (args.csv) {
      io.out(renderCsv([...COLUMNS], rows.map((r) => COLUMNS.map((c) => r[c]))));
    } else {
      io.out(renderTable(['#', 'chunk id', 'type', 'path', 'size', 'stored', 'blocks', 'hash'], rows.map(humanRow), ['right', 'left', 'left', 'left', 'right', 'right', 'right', 'left']));
      io.out(`${rows.length} of ${toc.chunkCount} chunks\n`);
    }
    return ExitCode.Ok;
  },
};

function printByType(args: ListArgs, io: CliIO, rows: readonly ChunkRow[], where: { file: string } | { files: string[] }): number {
  const summary = summarizeByType(rows);
  if (args.json) io.out(renderJson({ ...where, byType: summary }));
  else if (args.csv) io.out(renderCsv(['type', 'count', 'size', 'storedSize'], summary.map((s) => [s.type, s.count, s.size, s.storedSize])));
  else {
    io.out(
      renderTable(
        ['type', 'count', 'raw', 'stored', 'ratio'],
        summary.map((s) => [s.type, String(s.count), formatBytes(s.size), formatBytes(s.storedSize), formatRatio(s.storedSize, s.size)]),
        ['left', 'right', 'right', 'right', 'right'],
      ),
    );
  }
  return ExitCode.Ok;
}

/**
 * Several containers (files or folders) in mount order: rows carry their container's name; --sort orders within each
 * container. An encrypted container without its key lists its chunks without paths, with a warning.
 */
async function listMany(args: ListArgs, query: Parameters<typeof listChunks>[1] & object, io: CliIO): Promise<number> {
  const entries = await discoverContainers(args.paths);
  const rows: Array<ChunkRow & { container: string }> = [];
  let total = 0;
  for (const entry of entries) {
    const toc = await openToc(entry.utoc, tocOptions(args));
    if (toc.directoryIndexError && !args.json && !args.csv) io.err(`warning: ${toc.directoryIndexError.message}\n`);
    for (const r of listChunks(toc, query)) rows.push({ container: entry.name, ...r });
    total += toc.chunkCount;
  }
  const files = entries.map((e) => e.utoc);
  if (args['by-type']) return printByType(args, io, rows, { files });
  if (args.json) {
    io.out(renderJson({ files, count: rows.length, chunks: rows }));
  } else if (args.csv) {
    io.out(renderCsv(['container', ...COLUMNS], rows.map((r) => [r.container, ...COLUMNS.map((c) => r[c])])));
  } else {
    io.out(renderTable(['container', '#', 'chunk id', 'type', 'path', 'size', 'stored', 'blocks', 'hash'], rows.map((r) => [r.container, ...humanRow(r)]), ['left', 'right', 'left', 'left', 'left', 'right', 'right', 'right', 'left']));
    io.out(`${rows.length} of ${total} chunks in ${entries.length} containers\n`);
  }
  return ExitCode.Ok;
}

function humanRow(r: ChunkRow): string[] {
  return [String(r.index), r.id, r.type, r.path, String(r.size), String(r.storedSize), String(r.blocks), r.hash];
}
