import { listChunks, summarizeByType, type ChunkRow } from '../../toc/listing.js';
import { openToc } from '../../toc/read-file.js';
import type { Command } from '../command.js';
import { formatBytes, formatRatio, renderCsv, renderJson, renderTable } from '../format.js';
import { ExitCode } from '../io.js';
import { tocOptions, withContainerOptions, type ContainerArgs } from '../options.js';

interface ListArgs extends ContainerArgs {
  file: string;
  json?: boolean;
  csv?: boolean;
  type?: string;
  filter?: string;
  sort?: 'index' | 'size' | 'path' | 'type';
  'by-type'?: boolean;
}

const COLUMNS = ['index', 'id', 'type', 'path', 'size', 'storedSize', 'blocks', 'hash'] as const;

export const listCommand: Command<ListArgs> = {
  command: 'list <file>',
  describe: 'List the chunks of a .utoc container: id, type, path, sizes, hash',
  builder: (y) =>
    withContainerOptions(y)
      .positional('file', { type: 'string', demandOption: true, describe: 'the .utoc file' })
      .option('json', { type: 'boolean', describe: 'print JSON: { file, chunks: [...] }' })
      .option('csv', { type: 'boolean', describe: 'print CSV' })
      .option('type', { type: 'string', describe: 'only chunks of this type (e.g. ExportBundleData, BulkData)' })
      .option('filter', { type: 'string', describe: 'only chunks whose path matches this glob (e.g. "**/*.ubulk")' })
      .option('sort', { choices: ['index', 'size', 'path', 'type'] as const, default: 'index' as const, describe: 'row order' })
      .option('by-type', { type: 'boolean', describe: 'summarise by chunk type: count, raw and stored bytes' })
      .conflicts('json', 'csv')
      .example('$0 list game.utoc --filter "**/Maps/**" --sort size', '')
      .example('$0 list game.utoc --by-type', '') as never,
  async run(args, io) {
    const toc = await openToc(args.file, tocOptions(args));
    const query = { sort: args.sort ?? 'index' } as Parameters<typeof listChunks>[1] & object;
    if (args.type !== undefined) query.type = args.type;
    if (args.filter !== undefined) query.filter = args.filter;
    const rows = listChunks(toc, query);
    if (toc.directoryIndexError && !args.json && !args.csv) io.err(`warning: ${toc.directoryIndexError.message}\n`);

    if (args['by-type']) {
      const summary = summarizeByType(rows);
      if (args.json) io.out(renderJson({ file: toc.source, byType: summary }));
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

function humanRow(r: ChunkRow): string[] {
  return [String(r.index), r.id, r.type, r.path, String(r.size), String(r.storedSize), String(r.blocks), r.hash];
}
