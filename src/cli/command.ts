import type { Argv } from './args.js';
import type { CliIO } from './io.js';

/** A CLI command: its arguments (declared on an Argv, see args.ts) and a handler over library calls that returns the exit code. */
export interface Command<A = any> {
  /** Name and positionals: `<required>`, `[optional]`, `<rest..>`. */
  command: string;
  describe: string;
  builder: (y: Argv) => Argv;
  run: (args: A, io: CliIO, context: CommandContext) => Promise<number>;
}

/** What a command may ask of the CLI around it. */
export interface CommandContext {
  /** Every command (loaded), e.g. for the completion script. */
  loadCommands: () => Promise<Command[]>;
}
