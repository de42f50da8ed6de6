/** Deterministic mutations of real files for the CLI fuzz tests. */

/** A small seeded PRNG (mulberry32): the same seed gives the same cases on every machine. */
export function prng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n: number) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n) >>> 0;
  };
}

export type Mutation = 'flip' | 'word' | 'truncate' | 'insert' | 'mixed';
export const MUTATIONS: readonly Mutation[] = ['flip', 'word', 'truncate', 'insert', 'mixed'];

/** Values that stress counts, sizes and offsets when written over a field. */
const WORDS = [0, 1, 2, 0xff, 0x7f, 0x80, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 0x40000000, 16, 1000000];

/**
 * One mutated copy of `src`. Positions are drawn from `spans` (where the counts, offsets and names live) half of
 * the time, anywhere otherwise.
 */
export function mutate(src: Uint8Array, rand: (n: number) => number, op: Mutation, spans: ReadonlyArray<readonly [number, number]> = []): Uint8Array {
  const pos = (len: number): number => {
    if (spans.length > 0 && rand(2) === 0) {
      const [a, b] = spans[rand(spans.length)]!;
      const lo = Math.min(a, len - 1);
      const hi = Math.min(b, len);
      if (hi > lo) return lo + rand(hi - lo);
    }
    return rand(Math.max(1, len));
  };
  let b = src.slice();
  const flip = () => {
    for (let k = 1 + rand(8); k > 0; k--) {
      const at = pos(b.length);
      b[at] = b[at]! ^ (1 << rand(8));
    }
  };
  const word = () => {
    for (let k = 1 + rand(3); k > 0; k--) {
      const at = pos(b.length) & ~3;
      const v = rand(4) === 0 ? rand(0x100000000) : WORDS[rand(WORDS.length)]!;
      const width = rand(3) === 0 ? 8 : 4;
      for (let i = 0; i < width && at + i < b.length; i++) b[at + i] = i < 4 ? (v >>> (8 * i)) & 0xff : rand(2) ? 0xff : 0;
    }
  };
  const truncate = () => {
    b = b.subarray(0, pos(b.length));
  };
  const insert = () => {
    const at = pos(b.length);
    const n = 1 + rand(64);
    const extra = new Uint8Array(n);
    for (let i = 0; i < n; i++) extra[i] = rand(4) === 0 ? 0x0a : rand(256);
    const out = new Uint8Array(b.length + n);
    out.set(b.subarray(0, at), 0);
    out.set(extra, at);
    out.set(b.subarray(at), at + n);
    b = out;
  };
  switch (op) {
    case 'flip':
      flip();
      break;
    case 'word':
      word();
      break;
    case 'truncate':
      truncate();
      break;
    case 'insert':
      insert();
      break;
    case 'mixed':
      for (let k = 1 + rand(3); k > 0; k--) [flip, word, insert, flip][rand(4)]!();
      if (rand(4) === 0) truncate();
      break;
  }
  return b;
}

/** Outcome counts of a fuzz run. */
export class FuzzTally {
  readonly codes = new Map<number, number>();
  ok = 0;
  partial = 0;
  cleanErrors = 0;
  bad: string[] = [];
  slowestMs = 0;
  peakRss = 0;

  add(code: number, err: string, ms: number, label: string): void {
    this.codes.set(code, (this.codes.get(code) ?? 0) + 1);
    this.slowestMs = Math.max(this.slowestMs, ms);
    const problem = judge(code, err);
    if (problem) {
      if (this.bad.length < 20) this.bad.push(`${label}: ${problem}`);
      return;
    }
    if (code === 0) this.ok++;
    else if (code === 1) this.partial++;
    else this.cleanErrors++;
  }

  summary(what: string): string {
    const codes = [...this.codes].sort((a, b) => a[0] - b[0]).map(([c, n]) => `exit ${c}: ${n}`).join(', ');
    return `${what}: ${this.ok} ok, ${this.partial} partial, ${this.cleanErrors} clean errors, ${this.bad.length} bad (${codes}); slowest ${this.slowestMs.toFixed(0)} ms, peak RSS ${(this.peakRss / 2 ** 20).toFixed(0)} MiB`;
  }
}

/** Why a CLI result breaks the error rules, or undefined when it keeps them. */
export function judge(code: number, err: string): string | undefined {
  if (code !== 0 && code !== 1 && code !== 2) return `exit code ${code}`;
  const lines = err.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const errors = lines.filter((l) => l.startsWith('iostore: '));
  if (lines.some((l) => /^\s+at /.test(l))) return 'a stack trace';
  if (errors.some((l) => l.startsWith('iostore: internal error'))) return `not a typed error: ${errors[0]}`;
  // Warnings are lines too; every line is one message of bounded length, free of terminal controls.
  if (lines.some((l) => !/^(iostore|warning|error): /.test(l) && !/failure\(s\)/.test(l))) return `a line that is not a message: ${JSON.stringify(lines.find((l) => !/^(iostore|warning|error): /.test(l)))?.slice(0, 200)}`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(err)) return 'a control character';
  if (lines.some((l) => l.length > 2000)) return `a line of ${Math.max(...lines.map((l) => l.length))} characters`;
  if (code === 2 && errors.length !== 1) return `${errors.length} error lines for exit code 2: ${JSON.stringify(err.slice(0, 300))}`;
  if (code === 0 && errors.length > 0) return 'an error line with exit code 0';
  return undefined;
}
