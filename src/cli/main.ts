import type { Argv } from 'yargs';
import { IoStoreError } from '../errors.js';
import { escapeControl } from '../util/quote.js';
import type { Command } from './command.js';
import { ExitCode, processIO, type CliIO } from './io.js';

/**
 * One entry per command: its name and a loader. A run loads only the command it names (every codec and format
 * behind the others stays unloaded, which is most of the start-up time); `--help` with no command loads them all.
 */
export interface CommandEntry {
  name: string;
  load: () => Promise<Command>;
}

export const COMMANDS: CommandEntry[] = [
  { name: 'info', load: async () => (await import('./commands/info.js')).infoCommand },
  { name: 'list', load: async () => (await import('./commands/list.js')).listCommand },
  { name: 'unpack', load: async () => (await import('./commands/unpack.js')).unpackCommand },
  { name: 'verify', load: async () => (await import('./commands/verify.js')).verifyCommand },
  { name: 'pack', load: async () => (await import('./commands/pack.js')).packCommand },
  { name: 'inspect', load: async () => (await import('./commands/inspect.js')).inspectCommand },
  { name: 'to-zen', load: async () => (await import('./commands/to-zen.js')).toZenCommand },
  { name: 'to-legacy', load: async () => (await import('./commands/to-legacy.js')).toLegacyCommand },
  { name: 'decompress', load: async () => (await import('./commands/decompress.js')).decompressCommand },
  { name: 'web', load: async () => (await import('./commands/web.js')).webCommand },
];

/** The package version, read once from package.json beside dist/ (or src/ under the tests). */
async function packageVersion(): Promise<string> {
  const { readFileSync } = await import('node:fs');
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export async function run(args: string[], io: CliIO = processIO): Promise<number> {
  const verbose = args.includes('--verbose');
  // Fast path: `--version` needs neither the argument parser nor any command.
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    io.out(`${await packageVersion()}\n`);
    return ExitCode.Ok;
  }
  const named = COMMANDS.find((c) => c.name === args.find((a) => !a.startsWith('-')));
  const commands = await Promise.all((named ? [named] : COMMANDS).map((c) => c.load()));
  const { default: yargs } = await import('yargs');
  let code: number = ExitCode.Ok;
  let usageError: string | undefined;
  let handlerError: unknown;
  let parser: Argv = yargs()
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
  for (const c of commands) {
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
