import { GLOBAL_OPTIONS, commandSlots, type Argv, type OptionSpec } from './args.js';

/** Help texts, rendered from what the commands declare (args.ts). Only `--help` loads this module. */

const NAME = 'iostore';

/**
 * Words of `text` in lines of at most `width` characters (a longer word gets a line of its own). Paragraphs are
 * separated by blank lines; single line breaks inside one are reflowed.
 */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const [i, paragraph] of text.split(/\n\n+/).entries()) {
    if (i > 0) lines.push('');
    let line = '';
    for (const word of paragraph.split(/[ \n]+/)) {
      if (line !== '' && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line === '' ? word : `${line} ${word}`;
    }
    lines.push(line);
  }
  return lines;
}

/** Two columns: names on the left, wrapped descriptions on the right (below the name when it is too long). */
function columns(rows: Array<[string, string]>, width: number, left = leftWidth(rows)): string[] {
  const right = Math.max(30, width - left - 4);
  const out: string[] = [];
  for (const [name, text] of rows) {
    const lines = text === '' ? [] : wrap(text, right);
    if (name.length > left) {
      out.push(`  ${name}`);
      for (const l of lines) out.push(`  ${' '.repeat(left + 2)}${l}`);
      continue;
    }
    out.push(`  ${name.padEnd(left)}  ${lines[0] ?? ''}`.trimEnd());
    for (const l of lines.slice(1)) out.push(`  ${' '.repeat(left + 2)}${l}`);
  }
  return out;
}

// Names longer than 26 characters put their description on the next line rather than widen the column.
const leftWidth = (rows: Array<[string, string]>): number => Math.max(0, ...rows.map(([n]) => n.length).filter((n) => n <= 26));

function optionRow(name: string, o: OptionSpec): [string, string] {
  const flag = `${o.alias ? `-${o.alias}, ` : '    '}--${name}${(o.aliases ?? []).map((a) => `, --${a}`).join('')}`;
  let value = '';
  if (o.choices) value = ` <${o.choices.join('|')}>`;
  else if (o.type === 'number') value = ' <n>';
  else if (o.type === 'string' || o.type === undefined) value = ' <value>';
  const notes: string[] = [];
  if (o.array) notes.push('repeatable');
  if (o.demandOption) notes.push('required');
  if (o.default !== undefined && o.default !== false) {
    notes.push(o.type === 'boolean' ? `on by default; --no-${name} turns it off` : `default: ${String(o.default)}`);
  }
  return [`${flag}${value}`, `${o.describe ?? ''}${notes.length > 0 ? ` [${notes.join('; ')}]` : ''}`];
}

const helpWidth = (): number => Math.min(110, process.stdout.columns || 100);

/** `iostore <command> --help`. */
export function commandHelp(command: string, describe: string, spec: Argv, width = helpWidth()): string {
  const { slots } = commandSlots(command);
  const out: string[] = [];
  const usage = (spec.usageText ?? `$0 ${command}\n\n${describe}`).replaceAll('$0', NAME);
  out.push(...wrap(usage, width), '');
  const args = slots.map((s): [string, string] => {
    const d = spec.positionals.get(s.name)?.describe ?? '';
    return [s.required ? `<${s.name}${s.variadic ? '..' : ''}>` : `[${s.name}${s.variadic ? '..' : ''}]`, d];
  });
  const options = [...spec.options].map(([n, o]) => optionRow(n, o));
  const globals = [...GLOBAL_OPTIONS].map(([n, o]) => optionRow(n, o));
  // One left column for the three lists, so their descriptions line up.
  const left = leftWidth([...args, ...options, ...globals]);
  if (args.length > 0) out.push('Arguments:', ...columns(args, width, left), '');
  if (options.length > 0) out.push('Options:', ...columns(options, width, left), '');
  out.push('Global options:', ...columns(globals, width, left));
  if (spec.examples.length > 0) {
    out.push('', 'Examples:');
    for (const [cmd, text] of spec.examples) {
      out.push(`  ${cmd.replaceAll('$0', NAME)}`);
      if (text) out.push(...wrap(text, width - 6).map((l) => `      ${l}`));
    }
  }
  return `${out.join('\n')}\n`;
}

/** `iostore --help`: every command with its one-line description. */
export function topHelp(commands: ReadonlyArray<{ command: string; describe: string }>, width = helpWidth()): string {
  const out = [
    `${NAME} <command> [options]`,
    '',
    'Read, unpack, verify and rebuild Unreal Engine IoStore containers (.utoc/.ucas/.pak).',
    '',
    'Commands:',
    ...columns(commands.map((c) => [`${NAME} ${c.command}`, c.describe]), width),
    '',
    'Global options:',
    ...columns([...[...GLOBAL_OPTIONS].map(([n, o]) => optionRow(n, o)), ['-V, --version', 'print the version and exit'] as [string, string]], width),
    '',
    `Run "${NAME} <command> --help" for the options of a command.`,
  ];
  return `${out.join('\n')}\n`;
}
