import { readFileSync } from 'node:fs';
import { IoStoreError, isIoStoreError } from '../errors.js';
import { escapeControl, quote } from '../util/quote.js';
import { Argv, closest, findCommandName, parseArgs, wantsHelp } from './args.js';
import type { Command } from './command.js';
import { ExitCode, processIO, type CliIO } from './io.js';

/**
 * One entry per command: its name and a loader. A run loads only the command it names (every codec and format
 * behind the others stays unloaded); `iostore --help` loads them all for their descriptions.
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
  { name: 'props', load: async () => (await import('./commands/props.js')).propsCommand },
  { name: 'decompress', load: async () => (await import('./commands/decompress.js')).decompressCommand },
  { name: 'web', load: async () => (await import('./commands/web.js')).webCommand },
  { name: 'completion', load: async () => (await import('./commands/completion.js')).completionCommand },
];

/** The package version, read once from package.json beside dist/ (or src/ under the tests). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** For the `iostore` program (bin/iostore.js) only: its commands may set V8 flags for the whole process. */
export { ownProcessFlags } from '../util/v8-flags.js';
export { stdWritesPending } from './io.js';

export async function run(args: string[], io: CliIO = processIO): Promise<number> {
  const verbose = args.includes('--verbose');
  // Fast path: `--version` needs neither the argument parser nor any command.
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    io.out(`${packageVersion()}\n`);
    return ExitCode.Ok;
  }
  try {
    const found = findCommandName(args);
    const help = wantsHelp(args);
    if (found === undefined) {
      if (args.includes('--version') || args.includes('-V')) {
        io.out(`${packageVersion()}\n`);
        return ExitCode.Ok;
      }
      if (help) {
        const { topHelp } = await import('./help.js');
        io.out(topHelp(await Promise.all(COMMANDS.map((c) => c.load()))));
        return ExitCode.Ok;
      }
      throw new IoStoreError('USAGE', `name a command: ${COMMANDS.map((c) => c.name).join(', ')} (see: iostore --help)`);
    }
    const entry = COMMANDS.find((c) => c.name === found.name);
    if (entry === undefined) {
      const near = closest(found.name, COMMANDS.map((c) => c.name));
      throw new IoStoreError('USAGE', `unknown command ${quote(found.name)}${near ? `; did you mean ${near}?` : ''} (see: iostore --help)`);
    }
    const command = await entry.load();
    const spec = command.builder(new Argv());
    if (help) {
      const { commandHelp } = await import('./help.js');
      io.out(commandHelp(command.command, command.describe, spec));
      return ExitCode.Ok;
    }
    const parsed = parseArgs(command.command, spec, [...args.slice(0, found.at), ...args.slice(found.at + 1)]);
    return await command.run(parsed, io, { loadCommands: () => Promise.all(COMMANDS.map((c) => c.load())) });
  } catch (e) {
    // An interrupt ends the run: its handler says so, and what the run then fails with (its workers stopped, its
    // files refused) is no news. Loaded on this path only: list and info load no output module.
    if (!verbose && (await import('../layout/output.js')).isAborting()) return ExitCode.BadInput;
    return reportError(e, io, verbose);
  }
}

export function reportError(e: unknown, io: CliIO, verbose: boolean): number {
  if (isIoStoreError(e)) {
    io.err(`iostore: ${e.message}\n`);
    if (verbose && e.stack) io.err(`${e.stack}\n`);
    return ExitCode.BadInput;
  }
  const err = e as Error;
  io.err(`iostore: internal error: ${escapeControl(String(err?.message ?? e))}\n`);
  if (verbose && err?.stack) io.err(`${err.stack}\n`);
  return ExitCode.BadInput;
}
