import { listChunks, selectChunks, selectsEveryChunk, summarizeByType, type ChunkRow } from '../../toc/listing.js';
import type { Command } from '../command.js';
import { formatBytes, formatRatio, renderCsv, renderJson, renderTable, renderTableFit, writeTable, type Align } from '../format.js';
import { escapeControl } from '../../util/quote.js';
import { ExitCode, writeOutBytes, type CliIO } from '../io.js';
import { plural } from '../plural.js';
import type { PakFileRow } from '../../pak/listing.js';
import { isPakPath, openTocWithKeys, pakKeys, singleInput, withContainerOptions, type ContainerArgs, type SingleInput } from '../options.js';
import { hintFilter } from '../filter-hint.js';
import { openForRows, writeChunkRows } from '../chunk-rows.js';
import { listJson } from '../json-shapes.js';
import { basename } from 'node:path';
import { keepYoungGenerationSmall } from '../young-generation.js';
import { SHORT_RUN_TOC_BYTES, skipOptimizingCompiler } from '../short-run.js';
import { withoutExtension } from '../../util/file-extension.js';
import type { IoStoreToc } from '../../toc/toc.js';

/** What `list` selects and how it orders the rows. */
type ChunkQuery = Parameters<typeof listChunks>[1] & object;

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
  describe: 'List the chunks of .utoc containers (id, type, path, sizes, hash) and the files of .pak archives',
  builder: (y) =>
    withContainerOptions(y)
      .usage('$0 list <input..>\n\nInputs are .utoc and .pak files and/or folders searched for them (a game\'s Paks folder). Several\ncontainers list together, each row naming its container. A .pak lists its files: path below the mount\npoint, size, stored size, compression, encrypted, SHA-1.')
      .positional('paths', { type: 'string', array: true, demandOption: true, describe: '.utoc/.pak file(s) or folder(s)' })
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
    const query = { sort: args.sort ?? 'index' } as ChunkQuery;
    if (args.type !== undefined) query.type = args.type;
    if (args.filter !== undefined) query.filter = args.filter;
    // One probe of a single input tells a folder and a short run, and leaves the file open for the TOC reader.
    const input = singleInput(args.paths, SHORT_RUN_TOC_BYTES);
    try {
      return await listInput(input, args, query, io);
    } finally {
      input?.opened?.close();
    }
  },
};

/** A single .utoc or .pak (`input`, probed), or several inputs and folders (undefined). */
async function listInput(input: SingleInput | undefined, args: ListArgs, query: ChunkQuery, io: CliIO): Promise<number> {
  // A short run (a small .utoc) goes without the optimizing compiler and leaves the young generation to V8; a
  // long one keeps it small from the start (it grows while the TOC is read).
  if (input !== undefined && !isPakPath(input.file) && input.below) skipOptimizingCompiler();
  else keepYoungGenerationSmall();
  if (input === undefined) return listMany(args, query, io);
  const { file, opened } = input;
  if (isPakPath(file)) return listPak(file, args, io);
  // The table to a terminal and --by-type write no rows through chunk-rows.
  const rowsWritten = !args['by-type'] && (args.json || args.csv || io.columns === undefined);
  const toc = await (rowsWritten ? openForRows(() => openTocWithKeys(file, args, opened)) : openTocWithKeys(file, args, opened));
  if (toc.directoryIndexError && !args.json && !args.csv) io.err(`warning: ${toc.directoryIndexError.message}\n`);
  if (!args['by-type'] && !args.json && !args.csv && io.columns !== undefined) {
    // On a terminal: the table fits its width, sizes for people.
    const rows = listChunks(toc, query);
    io.out(renderTableFit(CHUNK_HEADERS, rows.map((r) => humanRow(r, true)), CHUNK_ALIGN, { width: io.columns, shrink: 3, drop: [7, 1, 6] }));
    io.out(`${rows.length} of ${plural(toc.chunkCount, 'chunk')}\n`);
    hintFilter(io, args.filter, rows.length);
    return ExitCode.Ok;
  }
  if (args['by-type']) {
    const rows = listChunks(toc, query);
    hintFilter(io, args.filter, rows.length);
    return printByType(args, io, rows, { file: toc.source });
  }
  // The table, CSV or JSON rows straight from the TOC, written as bytes (src/cli/chunk-rows.ts): no row objects,
  // and for the usual listing (every chunk in TOC order) no table of rows either.
  const order = selectsEveryChunk(query) ? null : selectChunks(toc, query);
  const count = order ? order.length : toc.chunkCount;
  const write = (bytes: Uint8Array) => writeOutBytes(io, bytes);
  if (args.json) {
    hintFilter(io, args.filter, count);
    writeJsonListing(file, toc, order, count, io, write);
    return ExitCode.Ok;
  }
  if (args.csv) {
    hintFilter(io, args.filter, count);
    io.out(`${COLUMNS.join(',')}\n`);
    writeChunkRows(toc, order, 'csv', write);
    return ExitCode.Ok;
  }
  writeChunkRows(toc, order, 'table', write);
  io.out(`${count} of ${plural(toc.chunkCount, 'chunk')}\n`);
  hintFilter(io, args.filter, count);
  return ExitCode.Ok;
}

/** One container's `list --json`: the shape's text, with the chunk rows written between its "chunks" brackets. */
function writeJsonListing(file: string, toc: IoStoreToc, order: ArrayLike<number> | null, count: number, io: CliIO, write: (bytes: Uint8Array) => void): void {
  const shape = listJson({ inputs: [file], chunks: [], pakFiles: [], single: { file: toc.source, mountPoint: toc.directoryIndex?.mountPoint ?? null }, several: false }) as { count: number };
  shape.count = count;
  const text = renderJson(shape);
  if (count === 0) {
    io.out(text);
    return;
  }
  const cut = text.indexOf('\n  "chunks": [') + '\n  "chunks": ['.length;
  io.out(`${text.slice(0, cut)}\n`);
  writeChunkRows(toc, order, 'json', write, withoutExtension(basename(file), '.utoc'));
  io.out(`  ${text.slice(cut)}`);
}

function printByType(args: ListArgs, io: CliIO, rows: readonly ChunkRow[], where: { file: string } | { files: string[] }): number {
  const summary = summarizeByType(rows);
  if (args.json) io.out(renderJson({ ...where, inputs: 'file' in where ? [where.file] : where.files, byType: summary, byCompression: [] }));
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
async function listMany(args: ListArgs, query: ChunkQuery, io: CliIO): Promise<number> {
  const [{ discoverMounts }, { listPakFiles }, { openPakOrWarn }] = await Promise.all([import('../../mount/mount.js'), import('../../pak/listing.js'), import('../pak-open.js')]);
  const found = await discoverMounts(args.paths);
  const entries = found.containers;
  // --type and --by-type select chunk types, which pak files do not have.
  const paks = args.type !== undefined || args['by-type'] ? [] : found.paks;
  const rows: Array<ChunkRow & { container: string }> = [];
  let total = 0;
  for (const entry of entries) {
    const toc = await openTocWithKeys(entry.utoc, args);
    if (toc.directoryIndexError && !args.json && !args.csv) io.err(`warning: ${toc.directoryIndexError.message}\n`);
    for (const r of listChunks(toc, query)) rows.push({ container: entry.name, ...r });
    total += toc.chunkCount;
  }
  const pakRows: Array<PakFileRow & { container: string }> = [];
  for (const p of paks) {
    const a = await openPakOrWarn(p.pak, await pakKeys(args), (m) => io.err(`warning: ${m}\n`));
    if (!a) continue;
    await a.close();
    for (const r of listPakFiles(a.pak, pakQuery(args))) pakRows.push({ container: `${p.name}.pak`, ...r });
  }
  const files = [...entries.map((e) => e.utoc), ...paks.map((p) => p.pak)];
  hintFilter(io, args.filter, rows.length + pakRows.length);
  if (args['by-type']) return printByType(args, io, rows, { files });
  if (entries.length === 0) {
    // Paks only: the pak rows alone, each naming its pak.
    if (args.json) io.out(renderJson(listJson({ inputs: files, chunks: [], pakFiles: pakRows, several: true })));
    else printPakRows(args, io, pakRows, true);
    if (!args.json && !args.csv) io.out(`${plural(pakRows.length, 'file')} in ${plural(paks.length, 'pak')}\n`);
    return ExitCode.Ok;
  }
  if (args.json) {
    io.out(renderJson(listJson({ inputs: files, chunks: rows, pakFiles: pakRows, several: true })));
  } else if (args.csv) {
    io.out(renderCsv(['container', ...COLUMNS], rows.map((r) => [r.container, ...COLUMNS.map((c) => r[c])])));
  } else {
    const fit = io.columns === undefined ? undefined : { width: io.columns, shrink: 4, drop: [8, 2, 7, 3] };
    io.out(renderTableFit(['container', ...CHUNK_HEADERS], rows.map((r) => [r.container, ...humanRow(r, fit !== undefined)]), ['left', ...CHUNK_ALIGN], fit));
    io.out(`${rows.length} of ${plural(total, 'chunk')} in ${plural(entries.length, 'container')}\n`);
    if (paks.length > 0 && !args.csv) {
      io.out('\n');
      // An empty table would only repeat its headers: the count line says it.
      if (pakRows.length > 0) printPakRows(args, io, pakRows, true);
      io.out(`${plural(pakRows.length, 'file')} in ${plural(paks.length, 'pak')}\n`);
    }
  }
  return ExitCode.Ok;
}

const PAK_COLUMNS = ['path', 'size', 'storedSize', 'compression', 'encrypted', 'hash'] as const;

function pakQuery(args: ListArgs): { sort: NonNullable<ListArgs['sort']>; filter?: string } {
  return { sort: args.sort ?? 'index', ...(args.filter !== undefined ? { filter: args.filter } : {}) };
}

/** One .pak: its files below the mount point. */
async function listPak(file: string, args: ListArgs, io: CliIO): Promise<number> {
  const [{ listPakFiles }, { openPakForCli }] = await Promise.all([import('../../pak/listing.js'), import('../pak-open.js')]);
  const a = await openPakForCli(file, await pakKeys(args));
  await a.close();
  const rows = listPakFiles(a.pak, pakQuery(args));
  hintFilter(io, args.filter, rows.length);
  if (args['by-type']) {
    // A pak's files have no chunk type: they are summarised by compression method.
    const by = new Map<string, { type: string; count: number; size: number; storedSize: number }>();
    for (const r of rows) {
      const x = by.get(r.compression) ?? { type: r.compression, count: 0, size: 0, storedSize: 0 };
      x.count++;
      x.size += r.size;
      x.storedSize += r.storedSize;
      by.set(r.compression, x);
    }
    const summary = [...by.values()];
    if (args.json) io.out(renderJson({ file, inputs: [file], byType: [], byCompression: summary }));
    else if (args.csv) io.out(renderCsv(['compression', 'count', 'size', 'storedSize'], summary.map((x) => [x.type, x.count, x.size, x.storedSize])));
    else io.out(renderTable(['compression', 'count', 'raw', 'stored', 'ratio'], summary.map((x) => [x.type, String(x.count), formatBytes(x.size), formatBytes(x.storedSize), formatRatio(x.storedSize, x.size)]), ['left', 'right', 'right', 'right', 'right']));
    return ExitCode.Ok;
  }
  if (args.json) {
    const pakFiles = rows.map((r) => ({ container: basename(file), ...r }));
    io.out(renderJson(listJson({ inputs: [file], chunks: [], pakFiles, single: { file, mountPoint: a.pak.mountPoint, version: a.pak.version, files: pakFiles }, several: false })));
  } else {
    printPakRows(args, io, rows, false);
    if (!args.csv) io.out(`${rows.length} of ${plural(a.pak.entries.length, 'file')}, mount point ${escapeControl(a.pak.mountPoint)}, pak v${a.pak.version} (${a.pak.versionName})\n`);
  }
  return ExitCode.Ok;
}

function printPakRows(args: ListArgs, io: CliIO, rows: ReadonlyArray<PakFileRow & { container?: string }>, named: boolean): void {
  const lead = named ? ['container'] : [];
  const size = io.columns !== undefined ? (n: number) => formatBytes(n) : String;
  const cells = (r: PakFileRow & { container?: string }) => [...(named ? [r.container ?? ''] : []), r.path, size(r.size), size(r.storedSize), r.compression, r.encrypted ? 'yes' : 'no', r.hash];
  if (args.csv) {
    io.out(renderCsv([...lead, ...PAK_COLUMNS], rows.map((r) => [...(named ? [r.container ?? ''] : []), ...PAK_COLUMNS.map((c) => (typeof r[c] === "boolean" ? String(r[c]) : (r[c] as string | number)))])));
    return;
  }
  const at = lead.length;
  const fit = io.columns === undefined ? undefined : { width: io.columns, shrink: at, drop: [at + 5, at + 4] };
  if (!fit) {
    // To a file or a pipe: written a batch of rows at a time, no cells per row (see writeTable).
    const cell = (i: number, c: number): string => {
      const r = rows[i]!;
      switch (c - at) {
        case -1: return r.container ?? '';
        case 0: return r.path;
        case 1: return String(r.size);
        case 2: return String(r.storedSize);
        case 3: return r.compression;
        case 4: return r.encrypted ? 'yes' : 'no';
        default: return r.hash;
      }
    };
    writeTable((t) => io.out(t), [...lead, 'path', 'size', 'stored', 'compression', 'encrypted', 'sha1'], rows.length, cell, [...lead.map(() => 'left' as const), 'left', 'right', 'right', 'left', 'left', 'left']);
    return;
  }
  io.out(renderTableFit([...lead, 'path', 'size', 'stored', 'compression', 'encrypted', 'sha1'], rows.map(cells), [...lead.map(() => 'left' as const), 'left', 'right', 'right', 'left', 'left', 'left'], fit));
}

const CHUNK_HEADERS = ['#', 'chunk id', 'type', 'path', 'size', 'stored', 'blocks', 'hash'];
const CHUNK_ALIGN: Align[] = ['right', 'left', 'left', 'left', 'right', 'right', 'right', 'left'];

/** A chunk's table cells; sizes in bytes, or for people (KiB, MiB) on a terminal. */
function humanRow(r: ChunkRow, human = false): string[] {
  const size = human ? (n: number) => formatBytes(n) : String;
  return [String(r.index), r.id, r.type, r.path, size(r.size), size(r.storedSize), String(r.blocks), r.hash];
}
