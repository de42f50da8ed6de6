import type { Argv } from 'yargs';
import type { CliIO } from './io.js';

/** A CLI command: yargs options plus a handler over library calls that returns the exit code. */
export interface Command<A = any> {
  command: string;
  describe: string;
  builder: (y: Argv) => Argv<A>;
  run: (args: A, io: CliIO) => Promise<number>;
}
