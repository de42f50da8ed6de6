import { containerInfo, type ContainerInfo } from '../../toc/listing.js';
import { openToc } from '../../toc/read-file.js';
import type { Command } from '../command.js';
import { formatBytes, formatRatio, renderJson, renderTable } from '../format.js';
import { discoverContainers } from '../../unpack/mount.js';
import { escapeControl } from '../../util/quote.js';
import { ExitCode, type CliIO } from '../io.js';
import { singleFile, tocOptions, withContainerOptions, type ContainerArgs } from '../options.js';

interface InfoArgs extends ContainerArgs {
  paths: string[];
  json?: boolean;
}

export const infoCommand: Command<InfoArgs> = {
  command: 'info <paths..>',
  describe: 'Show the header and totals of .utoc containers',
  builder: (y) =>
    withContainerOptions(y)
      .usage('$0 info <input..>\n\nOne .utoc shows its header and totals; several (or folders searched for them, e.g. a Paks folder)\nshow one row per container and a total.')
      .positional('paths', { type: 'string', array: true, demandOption: true, describe: '.utoc file(s) or folder(s)' })
      .option('json', { type: 'boolean', describe: 'print a JSON object (several containers: { containers: [...] })' })
      .example('$0 info pakchunk0-Windows.utoc', '')
      .example('$0 info game.utoc --aes-key 0x1234...', 'an encrypted container')
      .example('$0 info Game/Content/Paks', 'every container of a game, one row each') as never,
  async run(args, io) {
    const file = singleFile(args.paths);
    if (file === undefined) return infoMany(args, io);
    const toc = await openToc(file, tocOptions(args));
    const info = containerInfo(toc);
    if (args.json) {
      io.out(renderJson(info));
    } else {
      io.out(renderInfo(info));
      if (toc.directoryIndexError) io.err(`warning: ${toc.directoryIndexError.message}\n`);
    }
    return ExitCode.Ok;
  },
};

/** One row per container in mount order, and a total. */
async function infoMany(args: InfoArgs, io: CliIO): Promise<number> {
  const infos: Array<ContainerInfo & { name: string }> = [];
  for (const entry of await discoverContainers(args.paths)) {
    const toc = await openToc(entry.utoc, tocOptions(args));
    if (toc.directoryIndexError && !args.json) io.err(`warning: ${toc.directoryIndexError.message}\n`);
    infos.push({ name: entry.name, ...containerInfo(toc) });
  }
  if (args.json) {
    io.out(renderJson({ containers: infos }));
    return ExitCode.Ok;
  }
  const raw = infos.reduce((a, i) => a + i.rawSize, 0);
  const stored = infos.reduce((a, i) => a + i.storedSize, 0);
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
  io.out(renderTable(['container', 'toc', 'chunks', 'files', 'raw', 'stored', 'compression', 'encryption', 'partitions'], rows, ['left', 'right', 'right', 'right', 'right', 'right', 'left', 'left', 'right']));
  io.out(`${infos.length} containers, ${infos.reduce((a, i) => a + i.chunkCount, 0)} chunks, ${formatBytes(raw)} raw, ${formatBytes(stored)} stored (${formatRatio(stored, raw)})\n`);
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
