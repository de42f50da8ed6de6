import { parseEngineVersion } from '../../toc/engine.js';
import { openContainer } from '../../unpack/unpack.js';
import { mountEntry } from '../../unpack/mount.js';
import { verifyContainer } from '../../verify/verify.js';
import type { Command } from '../command.js';
import { formatBytes, renderJson } from '../format.js';
import { ExitCode } from '../io.js';
import { cliCodecs, keyRing, withKeyOptions, type KeyArgs } from '../keys.js';
import { ProgressBar } from '../progress.js';
import { threadsArg } from '../options.js';

interface VerifyArgs extends KeyArgs {
  threads?: number;
  file: string;
  hash?: 'blake3' | 'sha1';
  engine?: string;
  json?: boolean;
  quiet?: boolean;
}

export const verifyCommand: Command<VerifyArgs> = {
  command: 'verify <file>',
  describe: 'Re-hash every chunk against its stored hash (and block signatures of signed containers)',
  builder: (y) =>
    withKeyOptions(y)
      .positional('file', { type: 'string', demandOption: true, describe: 'the .utoc file (its .ucas partitions beside it)' })
      .option('hash', { choices: ['blake3', 'sha1'] as const, describe: 'hash algorithm (default: BLAKE3 for UE5, SHA-1 for UE4)' })
      .option('engine', { type: 'string', describe: 'engine version (e.g. UE4_27)' })
      .option('threads', { type: 'number', describe: 'worker threads hashing whole chunks (0: all on the main thread; default: one per core for 32 MiB or more)' })
      .option('json', { type: 'boolean', describe: 'print the result as JSON' }) as never,
  async run(args, io) {
    const engine = args.engine === undefined ? undefined : parseEngineVersion(args.engine);
    const threads = threadsArg(args.threads);
    const reader = await openContainer(mountEntry(args.file), { keys: await keyRing(args), codecs: await cliCodecs(args), ...(engine ? { engine } : {}) });
    const bar = new ProgressBar(io, 'verify', io.isTTY && !args.quiet && !args.json);
    let result;
    try {
      result = await verifyContainer(reader, { ...(args.hash ? { algorithm: args.hash } : {}), ...(threads !== undefined ? { threads } : {}), onProgress: (p) => bar.update(p) });
    } finally {
      bar.done();
      await reader.close();
    }
    if (args.json) {
      io.out(renderJson(result));
    } else {
      for (const m of result.mismatches) io.out(`MISMATCH ${m.path || `${m.type} ${m.id}`} (chunk ${m.index}): expected ${m.expected}, got ${m.actual}\n`);
      for (const e of result.errors) io.out(`ERROR    ${e.path || e.id} (chunk ${e.index}): ${e.message}\n`);
      for (const b of result.blockSignatureMismatches) io.out(`BAD BLOCK SIGNATURE block ${b}\n`);
      if (!args.quiet || !result.ok) {
        io.out(`${result.ok ? 'OK' : 'FAILED'}: ${result.verified}/${result.chunks} chunks match their ${result.algorithm} hashes (${formatBytes(result.bytes)})${result.signed ? `, ${result.blockSignatureMismatches.length} bad block signatures` : ''}\n`);
      }
    }
    return result.ok ? ExitCode.Ok : ExitCode.Partial;
  },
};
