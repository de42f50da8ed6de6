import { run } from '../src/cli/main.js';

/** Runs the CLI in-process and captures what it prints. */
export async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(args, { out: (t) => (out += t), err: (t) => (err += t), isTTY: false });
  return { code, out, err };
}
