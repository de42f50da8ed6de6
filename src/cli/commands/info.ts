import { containerInfo, type ContainerInfo } from '../../toc/listing.js';
import { openToc } from '../../toc/read-file.js';
import type { Command } from '../command.js';
import { formatBytes, formatRatio, renderJson } from '../format.js';
import { ExitCode } from '../io.js';
import { tocOptions, withContainerOptions, type ContainerArgs } from '../options.js';

interface InfoArgs extends ContainerArgs {
  file: string;
  json?: boolean;
}

export const infoCommand: Command<InfoArgs> = {
  command: 'info <file>',
  describe: 'Show the header and totals of a .utoc container',
  builder: (y) =>
    withContainerOptions(y)
      .positional('file', { type: 'string', demandOption: true, describe: 'the .utoc file' })
      .option('json', { type: 'boolean', describe: 'print a JSON object' })
      .example('$0 info pakchunk0-Windows.utoc', '')
      .example('$0 info game.utoc --aes-key 0x1234...', 'an encrypted container') as never,
  async run(args, io) {
    const toc = await openToc(args.file, tocOptions(args));
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
    ['Mount point', i.mountPoint ?? (i.directoryIndex === 'encrypted' ? '(encrypted: pass --aes-key)' : '(no directory index)')],
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
