import { IoStoreError } from '../errors.js';

/**
 * The command line, parsed by hand. A general-purpose parser (yargs) took most of a short command's run time: ~90 ms
 * to load and as long again to lay out a help text it builds on every run in case one is asked for; bundled into the
 * CLI with its code cache (yargs 18, measured again for issue #23) it still cost `info x.utoc` ~60 ms to load, twenty
 * times the whole hand parser's bundle (see the README, "Command line"). Commands
 * declare their arguments with the same few calls (`option`, `positional`, `usage`, `example`, `conflicts`); this
 * module records them, parses `argv` against them and renders `--help` from them.
 */

export interface OptionSpec {
  type?: 'string' | 'boolean' | 'number';
  describe?: string;
  default?: unknown;
  choices?: readonly (string | number)[];
  /** The option must be given (options), or the positional must be (they are anyway when written `<name>`). */
  demandOption?: boolean;
  /** Repeatable option (values collect in an array), or a positional taking the remaining arguments. */
  array?: boolean;
  /** One-letter short form, e.g. `q` for `-q`. */
  alias?: string;
  /** Other long names the option answers to (e.g. `version` for `--engine`): same value, one key in the result. */
  aliases?: readonly string[];
}

/** What a command's builder declares: its options, positionals, help text and examples. */
export class Argv {
  readonly options = new Map<string, OptionSpec>();
  readonly positionals = new Map<string, OptionSpec>();
  usageText: string | undefined;
  readonly examples: Array<[string, string]> = [];
  readonly conflicting: Array<[string, string]> = [];

  option(name: string, spec: OptionSpec): this {
    this.options.set(name, spec);
    return this;
  }
  positional(name: string, spec: OptionSpec): this {
    this.positionals.set(name, spec);
    return this;
  }
  usage(text: string): this {
    this.usageText = text;
    return this;
  }
  example(command: string, description: string): this {
    this.examples.push([command, description]);
    return this;
  }
  conflicts(a: string, b: string): this {
    this.conflicting.push([a, b]);
    return this;
  }
}

/** Options every command takes (the process reads `--verbose` itself, before any parsing). */
export const GLOBAL_OPTIONS: ReadonlyMap<string, OptionSpec> = new Map<string, OptionSpec>([
  ['verbose', { type: 'boolean', describe: 'print stack traces of errors' }],
  ['quiet', { type: 'boolean', alias: 'q', describe: 'print nothing but results and errors' }],
  ['oodle-lib', { type: 'string', describe: 'an Oodle shared library of your own to decode Oodle blocks with (default: the built-in decoder; also OODLE_LIB)' }],
  ['help', { type: 'boolean', alias: 'h', describe: 'show this help' }],
]);

/** One `<name>`, `[name]` or `<name..>` of a command string such as `inspect <file> [package]`. */
export interface PositionalSlot {
  name: string;
  required: boolean;
  variadic: boolean;
}

export function commandSlots(command: string): { name: string; slots: PositionalSlot[] } {
  // Split at spaces without a regular expression: a short run's first one compiles it (the commands' strings are
  // ours, their parts one space apart).
  const [name, ...rest] = command.split(' ').filter((part) => part !== '');
  const slots = rest.map((s) => {
    const variadic = s.endsWith('..]') || s.endsWith('..>');
    return { name: s.slice(1, variadic ? -3 : -1), required: s.startsWith('<'), variadic };
  });
  return { name: name!, slots };
}

const usageError = (command: string, message: string): IoStoreError =>
  new IoStoreError('USAGE', `${message} (see: iostore ${command} --help)`);

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^0[xX][0-9a-fA-F]+$/;

/** Whether `--help`/`-h` appears among the options (before a `--`): help is shown whatever else is wrong. */
export function wantsHelp(tokens: readonly string[]): boolean {
  for (const t of tokens) {
    if (t === '--') return false;
    if (t === '--help' || t === '-h') return true;
  }
  return false;
}

/**
 * Parses a command's arguments (the command name already removed) into `{ [option or positional name]: value }`.
 * Options: `--name value`, `--name=value`, `--flag`, `--no-flag`, `--flag=false`, `-q`; `--` ends them. A missing,
 * unknown or malformed argument throws a USAGE IoStoreError with a one-line message.
 */
export function parseArgs(command: string, spec: Argv, tokens: readonly string[]): Record<string, unknown> {
  const { name: cmd, slots } = commandSlots(command);
  const options = new Map<string, OptionSpec>([...GLOBAL_OPTIONS, ...spec.options]);
  const short = new Map<string, string>();
  for (const [name, o] of options) if (o.alias) short.set(o.alias, name);
  // Long aliases answer for their option, under its name.
  const long = new Map<string, string>();
  for (const [name, o] of options) for (const a of o.aliases ?? []) long.set(a, name);
  const known = (name: string): string | undefined => (options.has(name) ? name : long.get(name));
  const fail = (message: string): never => {
    throw usageError(cmd, message);
  };
  const out: Record<string, unknown> = {};
  const given = new Set<string>();
  const positionals: string[] = [];

  /** Sets option `name`; messages name it as it was written (`shown`: an alias, or the short form). */
  const set = (name: string, o: OptionSpec, raw: string | boolean, shown = name): void => {
    let value: unknown = raw;
    if (o.type === 'number') {
      const n = typeof raw === 'string' && NUMBER.test(raw.trim()) ? Number(raw) : NaN;
      if (Number.isNaN(n)) fail(`--${shown} takes a number, not ${JSON.stringify(raw)}`);
      value = n;
    }
    if (o.choices && !o.choices.includes(value as string | number)) {
      fail(`--${shown} must be one of ${o.choices.join(', ')}, not ${JSON.stringify(raw)}`);
    }
    if (o.array) out[name] = [...((given.has(name) ? out[name] : []) as unknown[]), value];
    else out[name] = value; // given twice: the last one wins, so a script can append an override
    given.add(name);
  };
  /** The value of a string/number option: `=value`, else the next argument unless it is another option. */
  const valueOf = (name: string, inline: string | undefined, i: number): [string, number] => {
    if (inline !== undefined) return [inline, i];
    const next = tokens[i + 1];
    if (next === undefined || (next.startsWith('-') && next !== '-' && !NUMBER.test(next))) fail(`--${name} needs a value`);
    return [next!, i + 1];
  };

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === '--') {
      positionals.push(...tokens.slice(i + 1));
      break;
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      const written = eq < 0 ? t.slice(2) : t.slice(2, eq);
      const inline = eq < 0 ? undefined : t.slice(eq + 1);
      let name = known(written) ?? written;
      let o = options.get(name);
      let negated = false;
      const positive = written.startsWith('no-') ? known(written.slice(3)) : undefined;
      if (!o && positive !== undefined && inline === undefined && options.get(positive)?.type === 'boolean') {
        name = positive;
        o = options.get(name);
        negated = true;
      }
      if (!o) return fail(unknownOption(written, options));
      const shown = negated ? written.slice(3) : written;
      if (o.type === 'boolean') {
        if (negated) set(name, o, false, shown);
        else if (inline === 'true' || inline === 'false') set(name, o, inline === 'true', shown);
        else if (inline !== undefined) fail(`--${shown} is a switch: give it alone, or as --${shown}=true/false`);
        else if (tokens[i + 1] === 'true' || tokens[i + 1] === 'false') set(name, o, tokens[++i] === 'true', shown);
        else set(name, o, true, shown);
        continue;
      }
      const [value, at] = valueOf(shown, inline, i);
      i = at;
      set(name, o, value, shown);
      continue;
    }
    if (t.length > 1 && t.startsWith('-') && !NUMBER.test(t)) {
      // -q, or a group of one-letter switches (-qh).
      for (const letter of t.slice(1)) {
        const name = short.get(letter);
        const o = name === undefined ? undefined : options.get(name);
        if (!o || o.type !== 'boolean') fail(`unknown option -${letter}`);
        set(name!, o!, true);
      }
      continue;
    }
    positionals.push(t);
  }

  let p = 0;
  for (const slot of slots) {
    if (slot.variadic) {
      out[slot.name] = positionals.slice(p);
      p = positionals.length;
    } else if (p < positionals.length) out[slot.name] = positionals[p++];
    const v = out[slot.name];
    const choices = spec.positionals.get(slot.name)?.choices;
    if (choices && typeof v === 'string' && !choices.includes(v)) fail(`<${slot.name}> must be one of ${choices.join(', ')}, not ${JSON.stringify(v)}`);
    if (slot.required && (v === undefined || (Array.isArray(v) && v.length === 0))) {
      const d = spec.positionals.get(slot.name)?.describe;
      fail(`missing <${slot.name}${slot.variadic ? '..' : ''}>${d ? `: ${d}` : ''}`);
    }
  }
  if (p < positionals.length) fail(`unexpected argument ${JSON.stringify(positionals[p])}`);

  for (const [name, o] of options) {
    if (given.has(name)) continue;
    if (o.demandOption) fail(`--${name} is required${o.describe ? `: ${o.describe}` : ''}`);
    if (o.default !== undefined) out[name] = o.default;
  }
  for (const [a, b] of spec.conflicting) if (given.has(a) && given.has(b)) fail(`--${a} and --${b} cannot be used together`);
  return out;
}

/** `unknown option --jsno; did you mean --json?`: the nearest name, alias or negated switch of the command. */
function unknownOption(written: string, options: ReadonlyMap<string, OptionSpec>): string {
  const names: string[] = [];
  for (const [name, o] of options) {
    names.push(name, ...(o.aliases ?? []));
    if (o.type === 'boolean') names.push(`no-${name}`);
  }
  const near = closest(written, names);
  return `unknown option --${written}${near ? `; did you mean --${near}?` : ''}`;
}

/**
 * The name of the command in a top-level argument list and where it is: the first argument that is neither an
 * option nor the value of a global option (`--oodle-lib lib.so list x.utoc`).
 */
export function findCommandName(tokens: readonly string[]): { name: string; at: number } | undefined {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === '--') return tokens[i + 1] === undefined ? undefined : { name: tokens[i + 1]!, at: i + 1 };
    if (!t.startsWith('-') || t === '-') return { name: t, at: i };
    if (!t.includes('=') && GLOBAL_OPTIONS.get(t.slice(2))?.type === 'string') i++;
  }
  return undefined;
}

/** The closest of `names` to a mistyped `name` (at most two edits away), for "did you mean". */
export function closest(name: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const n of names) {
    const d = editDistance(name, n);
    if (d < bestDistance) {
      best = n;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
