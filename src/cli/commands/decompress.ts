import { readFile, writeFile } from 'node:fs/promises';
import { cliCodecs } from '../keys.js';
import { IoStoreError } from '../../errors.js';
import { ioError } from '../../toc/read-file.js';
import type { Command } from '../command.js';
import { ExitCode } from '../io.js';

interface DecompressArgs {
  'oodle-lib'?: string;
  method: string;
  size: number;
  input: string;
  output: string;
  offset?: number;
  length?: number;
}

export const decompressCommand: Command<DecompressArgs> = {
  command: 'decompress <input> <output>',
  describe: 'Decode one raw compressed stream (a block) with a named codec, for debugging',
  builder: (y) =>
    y
      .positional('input', { type: 'string', demandOption: true, describe: 'file holding the compressed bytes' })
      .positional('output', { type: 'string', demandOption: true, describe: 'file to write the decoded bytes to' })
      .option('method', { type: 'string', demandOption: true, describe: 'codec name: zlib, gzip, lz4, oodle, none' })
      .option('size', { type: 'number', demandOption: true, describe: 'exact decompressed size in bytes' })
      .option('offset', { type: 'number', describe: 'start of the stream in the input file (default 0)' })
      .option('length', { type: 'number', describe: 'length of the stream (default: to the end of the file)' })
      .example('$0 decompress block.bin out.bin --method oodle --size 65536', '') as never,
  async run(args, io) {
    if (!Number.isSafeInteger(args.size) || args.size < 0 || args.size > 1 << 30) {
      throw new IoStoreError('USAGE', `--size must be a byte count up to 1 GiB (got ${args.size})`);
    }
    const data = await readFile(args.input).catch((e) => {
      throw ioError(e, args.input);
    });
    const start = args.offset ?? 0;
    const end = args.length === undefined ? data.length : start + args.length;
    if (start < 0 || end > data.length || end < start) throw new IoStoreError('USAGE', `range ${start}..${end} is outside the ${data.length}-byte input`, { file: args.input });
    const codec = (await cliCodecs(args)).require(args.method);
    const out = codec.decompress(new Uint8Array(data.buffer, data.byteOffset + start, end - start), args.size);
    await writeFile(args.output, out).catch((e) => {
      throw ioError(e, args.output);
    });
    io.err(`${args.input}: ${end - start} bytes -> ${out.length} bytes (${codec.name})\n`);
    return ExitCode.Ok;
  },
};
