import yargs from 'yargs';
import { IoStoreError } from '../errors.js';
import { escapeControl } from '../util/quote.js';
import type { Command } from './command.js';
import { infoCommand } from './commands/info.js';
import { listCommand } from './commands/list.js';
import { unpackCommand } from './commands/unpack.js';
import { verifyCommand } from './commands/verify.js';
import { decompressCommand } from './commands/decompress.js';
import { packCommand } from './commands/pack.js';
import { inspectCommand } from './commands/inspect.js';
import { webCommand } from './commands/web.js';
import { toZenCommand } from './commands/to-zen.js';
import { toLegacyCommand } from './commands/to-legacy.js';
import { ExitCode, processIO, type CliIO } from './io.js';

export const COMMANDS: Command[] = [infoCommand, listCommand, unpackCommand, verifyCommand, packCommand, toZenCommand, inspectCommand, decompressCommand, toLegacyCommand, webCommand];

/**
 * Runs the CLI on `args` and returns the exit code: 0 ok, 1 partial failure, 2 bad input or usage.
 * Errors print as one line; the stack only with --verbose.
 */
export async function run(args: string[], io: CliIO = processIO): Promise<number> {
  const verbose = args.includes('--verbose');
  let code: number = ExitCode.Ok;
  let usageError: string | undefined;
  let handlerError: unknown;
  let parser = yargs()
    .scriptName('iostore')
    .usage('$0 <command> [options]\n\nRead, unpack, verify and rebuild Unreal Engine IoStore containers (.utoc/.ucas/.pak).')
    .option('verbose', { type: 'boolean', describe: 'print stack traces of errors' })
    .option('quiet', { type: 'boolean', alias: 'q', describe: 'print nothing but results and errors' })
    .option('oodle-lib', { type: 'string', describe: 'an Oodle shared library of your own to decode Oodle blocks with (default: the built-in decoder; also OODLE_LIB)' })
    .demandCommand(1, 'name a command')
    .recommendCommands()
    .strict()
    .help()
    .alias('help', 'h')
    .version(false)
    .wrap(Math.min(110, process.stdout.columns || 100))
    .exitProcess(false)
    .fail((msg, err) => {
      // Only argument validation reaches here: command handlers catch their own errors below.
      usageError = msg ?? err?.message ?? 'invalid arguments';
    });
  for (const c of COMMANDS) {
    parser = parser.command(c.command, c.describe, c.builder, async (argv) => {
      try {
        code = await c.run(argv, io);
      } catch (e) {
        handlerError = e;
      }
    });
  }
  try {
    let helpText = '';
    await parser.parseAsync(args, {}, (_err, _argv, output) => {
      helpText = output;
    });
    if (handlerError !== undefined) return reportError(handlerError, io, verbose);
    if (usageError !== undefined) {
      if (helpText) io.err(`${helpText}\n\n`);
      io.err(`iostore: ${usageError}\n`);
      return ExitCode.BadInput;
    }
    if (helpText) io.out(`${helpText}\n`);
    return code;
  } catch (e) {
    return reportError(e, io, verbose);
  }
}

export function reportError(e: unknown, io: CliIO, verbose: boolean): number {
  if (e instanceof IoStoreError) {
    io.err(`iostore: ${e.message}\n`);
    if (verbose && e.stack) io.err(`${e.stack}\n`);
    return ExitCode.BadInput;
  }
  const err = e as Error;
  io.err(`iostore: internal error: ${escapeControl(String(err?.message ?? e))}\n`);
  if (verbose && err?.stack) io.err(`${err.stack}\n`);
  return ExitCode.BadInput;
}
