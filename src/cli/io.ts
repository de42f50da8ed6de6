/** Where a command writes: injectable so tests run commands in-process and read their output. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is an interactive terminal (progress bars are drawn only then). */
  readonly isTTY: boolean;
}

export const processIO: CliIO = {
  out: (t) => {
    process.stdout.write(t);
  },
  err: (t) => {
    process.stderr.write(t);
  },
  isTTY: Boolean(process.stderr.isTTY),
};

/** Exit codes of the CLI. */
export const ExitCode = { Ok: 0, Partial: 1, BadInput: 2 } as const;
