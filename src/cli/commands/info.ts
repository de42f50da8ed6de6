import { toHex } from '../../util/bytes.js';
import { isIoStoreError } from '../../errors.js';
import { containerInfo, type ContainerInfo } from '../../toc/listing.js';
import type { Command } from '../command.js';
import { formatBytes, formatRatio, renderJson, renderTableFit } from '../format.js';
import { escapeControl } from '../../util/quote.js';
import type { PakInfo } from '../../pak/listing.js';
import { ExitCode, type CliIO } from '../io.js';
import { plural } from '../plural.js';
import { isPakPath, openTocWithKeys, pakKeys, singleInput, withContainerOptions, type ContainerArgs, type SingleInput } from '../options.js';
import { infoJson } from '../json-shapes.js';
import { basename } from 'node:path';
import { SHORT_RUN_TOC_BYTES, skipOptimizingCompiler } from '../short-run.js';
import { withoutExtension } from '../../util/file-extension.js';

// Paks and folders load their readers when given: a single .utoc, the common case, needs none of them.
const pakModules = () => Promise.all([import('../pak-open.js'), import('../../pak/listing.js')]);

interface InfoArgs extends ContainerArgs {
  paths: string[];
  json?: boolean;
}

export const infoCommand: Command<InfoArgs> = {
  command: 'info <paths..>',
  describe: 'Show the header and totals of .utoc containers and .pak archives',
  builder: (y) =>
    withContainerOptions(y)
      .usage('$0 info <input..>\n\nOne .utoc or .pak shows its header and totals; several (or folders searched for them, e.g. a Paks\nfolder) show one row per container and a total. A .pak shows its version, mount point, entry count,\nindex encryption, key GUID and compression methods.')
      .positional('paths', { type: 'string', array: true, demandOption: true, describe: '.utoc/.pak file(s) or folder(s)' })
      .option('json', { type: 'boolean', describe: 'print a JSON object (several containers: { containers: [...] })' })
      .example('$0 info pakchunk0-Windows.utoc', '')
      .example('$0 info game.utoc --aes-key 0x1234...', 'an encrypted container')
      .example('$0 info Game/Content/Paks', 'every container of a game, one row each') as never,
  async run(args, io) {
    // One probe of a single input tells a folder and a short run, and leaves the file open for the TOC reader.
    const input = singleInput(args.paths, SHORT_RUN_TOC_BYTES);
    try {
      return await infoOf(input, args, io);
    } finally {
      input?.opened?.close();
    }
  },
};

/** A single .utoc or .pak (`input`, probed), or several inputs and folders (undefined). */
async function infoOf(input: SingleInput | undefined, args: InfoArgs, io: CliIO): Promise<number> {
  if (input === undefined) return infoMany(args, io);
  const { file, below, opened } = input;
  if (isPakPath(file)) {
    const [{ openPakForCli }, { pakInfo }] = await pakModules();
    let a;
    try {
      a = await openPakForCli(file, await pakKeys(args));
    } catch (e) {
      // Without the key of an encrypted index the footer still tells the version and which key is needed.
      if (!isIoStoreError(e) || e.code !== 'NEEDS_KEY') throw e;
      return footerOnly(file, args, io);
    }
    await a.close();
    const info = pakInfo(a.pak, a.size);
    io.out(args.json ? renderJson(infoJson([], [{ name: basename(file), ...info }], info)) : renderPakInfo(info));
    return ExitCode.Ok;
  }
  if (below) skipOptimizingCompiler();
  const toc = await openTocWithKeys(file, args, opened);
  const info = containerInfo(toc);
  if (args.json) {
    io.out(renderJson(infoJson([{ name: withoutExtension(basename(file), '.utoc'), ...info }], [], info)));
  } else {
    io.out(renderInfo(info));
    if (toc.directoryIndexError) io.err(`warning: ${toc.directoryIndexError.message}\n`);
  }
  return ExitCode.Ok;
}

/** One row per container in mount order, and a total. */
async function infoMany(args: InfoArgs, io: CliIO): Promise<number> {
  const [[{ openPakOrWarn }, { pakInfo }], { discoverMounts }] = await Promise.all([pakModules(), import('../../mount/mount.js')]);
  const infos: Array<ContainerInfo & { name: string }> = [];
  const { containers, paks } = await discoverMounts(args.paths);
  const pakInfos: Array<PakInfo & { name: string }> = [];
  for (const p of paks) {
    const a = await openPakOrWarn(p.pak, await pakKeys(args), (m) => io.err(`warning: ${m}\n`));
    if (!a) continue;
    await a.close();
    pakInfos.push({ name: `${p.name}.pak`, ...pakInfo(a.pak, a.size) });
  }
  for (const entry of containers) {
    const toc = await openTocWithKeys(entry.utoc, args);
    if (toc.directoryIndexError && !args.json) io.err(`warning: ${toc.directoryIndexError.message}\n`);
    infos.push({ name: entry.name, ...containerInfo(toc) });
  }
  if (args.json) {
    io.out(renderJson(infoJson(infos, pakInfos)));
    return ExitCode.Ok;
  }
  const raw = infos.reduce((a, i) => a + i.rawSize, 0) + pakInfos.reduce((a, i) => a + i.rawSize, 0);
  const stored = infos.reduce((a, i) => a + i.storedSize, 0) + pakInfos.reduce((a, i) => a + i.storedSize, 0);
  const rows = infos.map((i) => [
    i.name,
    String(i.version),
    String(i.chunkCount),
    i.fileCount === null ? '-' : String(i.fileCount),
    formatBytes(i.rawSize),
    formatBytes(i.storedSize),
    i.compressionMethods.filter((m) => m !== 'None').join(', ') || 'none',
    i.encryption === 'None' ? '' : i.encryption,
    String(i.partitionCount),
  ]);
  // Paks: "pak vN" in the version column, entries as files, no chunks or partitions.
  for (const i of pakInfos) {
    const enc = [i.encryptedIndex ? 'index' : '', i.encryptedEntries > 0 ? `${i.encryptedEntries} entries` : ''].filter(Boolean).join(', ');
    rows.push([i.name, `pak ${i.version}`, '-', String(i.entryCount), formatBytes(i.rawSize), formatBytes(i.storedSize), i.compressionUsed.filter((m) => m !== 'None').join(', ') || 'none', enc ? `${i.encryptionMethod} (${enc})` : '', '-']);
  }
  const fit = io.columns === undefined ? undefined : { width: io.columns, shrink: 0, drop: [8, 7] };
  io.out(renderTableFit(['container', 'toc', 'chunks', 'files', 'raw', 'stored', 'compression', 'encryption', 'partitions'], rows, ['left', 'right', 'right', 'right', 'right', 'right', 'left', 'left', 'right'], fit));
  io.out(`${plural(infos.length, 'container')}, ${plural(infos.reduce((a, i) => a + i.chunkCount, 0), 'chunk')}${pakInfos.length > 0 ? `, ${plural(pakInfos.length, 'pak')} of ${plural(pakInfos.reduce((a, i) => a + i.entryCount, 0), 'file')}` : ''}, ${formatBytes(raw)} raw, ${formatBytes(stored)} stored (${formatRatio(stored, raw)})\n`);
  return ExitCode.Ok;
}

function renderInfo(i: ContainerInfo): string {
  const rows: Array<[string, string]> = [
    ['File', i.file],
    ['TOC version', `${i.version} (${i.versionName})`],
    ['Engine', `${i.engineGeneration} (TOC v${i.version} is written by ${i.engineVersions})`],
    ['Container id', i.containerId],
    ['Flags', `0x${i.flags.toString(16).padStart(2, '0')} ${i.flagNames.join(', ') || '(none)'}`],
    ['Encryption', i.encryption === 'None' ? 'none' : `${i.encryption}, key GUID ${i.encryptionKeyGuid}`],
    ['Encryption key GUID', i.encryptionKeyGuid],
    ['Block size', `${i.blockSize} (${formatBytes(i.blockSize)})`],
    ['Compression', i.compressionMethods.join(', ')],
    ['Partitions', i.partitionSize === null ? `${i.partitionCount}` : `${i.partitionCount} of ${i.partitionSize} bytes`],
    ['Mount point', i.mountPoint !== null ? escapeControl(i.mountPoint) || '(empty)' : (i.directoryIndex === 'encrypted' ? '(encrypted: pass --aes-key)' : '(no directory index)')],
    ['Chunks', `${i.chunkCount}`],
    ['Blocks', `${i.blockCount}`],
    ['Files', i.fileCount === null ? '-' : `${i.fileCount}`],
    ['Raw size', `${i.rawSize} (${formatBytes(i.rawSize)})`],
    ['Stored size', `${i.storedSize} (${formatBytes(i.storedSize)})`],
    ['Ratio', formatRatio(i.storedSize, i.rawSize)],
    ['Perfect hash', i.perfectHashSeeds === 0 ? 'none' : `${i.perfectHashSeeds} seeds, ${i.chunksWithoutPerfectHash} overflow chunks`],
    ['Signed', i.signed ? 'yes' : 'no'],
  ];
  const w = Math.max(...rows.map(([k]) => k.length)) + 1;
  return rows.map(([k, v]) => `${`${k}:`.padEnd(w)} ${v}\n`).join('');
}

function renderPakInfo(i: PakInfo): string {
  const rows: Array<[string, string]> = [
    ['File', i.file],
    ['Pak version', `${i.version} (${i.versionName})`],
    ['Mount point', escapeControl(i.mountPoint)],
    ['Entries', `${i.entryCount}${i.deletedCount > 0 ? ` (+${i.deletedCount} delete records)` : ''}`],
    ['Index encryption', i.encryptedIndex ? `yes (${i.encryptionMethod})` : 'no'],
    ['Encrypted entries', `${i.encryptedEntries}${i.encryptedEntries > 0 ? ` (${i.encryptionMethod})` : ''}`],
    ['Encryption key GUID', i.encryptionKeyGuid],
    ['Compression methods', i.compressionMethods.join(', ') || '(none named)'],
    ['Compression used', i.compressionUsed.join(', ') || '-'],
    ['Raw size', `${i.rawSize} (${formatBytes(i.rawSize)})`],
    ['Stored size', `${i.storedSize} (${formatBytes(i.storedSize)})`],
    ['Ratio', formatRatio(i.storedSize, i.rawSize)],
    ['File size', `${i.fileSize} (${formatBytes(i.fileSize)})`],
    ['Index', `${i.indexSize} bytes at ${i.indexOffset}, SHA-1 ${i.indexHash}`],
    ['Path-hash index', i.version >= 10 ? (i.pathHashIndex ? `yes, seed ${i.pathHashSeed}` : 'no') : '-'],
    ['Full directory index', i.version >= 10 ? (i.fullDirectoryIndex ? 'yes' : 'no') : '-'],
  ];
  const w = Math.max(...rows.map(([k]) => k.length)) + 1;
  return rows.map(([k, v]) => `${`${k}:`.padEnd(w)} ${v}\n`).join('');
}

async function footerOnly(file: string, args: InfoArgs, io: CliIO): Promise<number> {
  const [{ PakArchive }, { fileSource: pakFileSource }, { pakVersionName }] = await Promise.all([import('../../pak/archive.js'), import('../../pak/pak-file.js'), import('../../pak/version.js')]);
  const src = await pakFileSource(file);
  let f;
  try {
    f = await PakArchive.footer(src, file);
  } finally {
    await src.close?.();
  }
  const info = {
    file,
    kind: 'pak',
    version: f.version,
    versionName: pakVersionName(f.version),
    mountPoint: null,
    entryCount: null,
    encryptedIndex: f.encryptedIndex,
    encryptionKeyGuid: toHex(f.encryptionKeyGuid).toUpperCase(),
    encryptionMethod: f.encryptionMethod === 2 ? 'AES-CTR' : 'AES-ECB',
    compressionMethods: f.compressionMethods,
    fileSize: src.size,
    indexOffset: f.indexOffset,
    indexSize: f.indexSize,
    indexHash: toHex(f.indexHash),
  };
  if (args.json) io.out(renderJson(infoJson([], [{ name: basename(file), ...info }], info)));
  else {
    const rows: Array<[string, string]> = [
      ['File', file],
      ['Pak version', `${info.version} (${info.versionName})`],
      ['Index encryption', `yes (${info.encryptionMethod}): pass --aes-key to see the mount point and entries`],
      ['Encryption key GUID', info.encryptionKeyGuid],
      ['Compression methods', info.compressionMethods.join(', ') || '(none named)'],
      ['File size', `${info.fileSize} (${formatBytes(info.fileSize)})`],
      ['Index', `${info.indexSize} bytes at ${info.indexOffset}, SHA-1 ${info.indexHash}`],
    ];
    const w = Math.max(...rows.map(([k]) => k.length)) + 1;
    io.out(rows.map(([k, v]) => `${`${k}:`.padEnd(w)} ${v}\n`).join(''));
  }
  return ExitCode.Ok;
}
