import { escapeControl } from '../util/quote.js';

export { formatBytes } from '../util/format-bytes.js';

/** Error lines a command prints one by one; past them it gives a count (`--json` lists every failure). */
export const ERROR_LINES_SHOWN = 20;

/**
 * The lines to print for a run's failures: each one up to ERROR_LINES_SHOWN, then how many more. A full disk fails
 * every file after the first: 5,000 lines would bury the first, which says why.
 */
export function limitedLines(lines: readonly string[], prefix: string): string[] {
  if (lines.length <= ERROR_LINES_SHOWN) return lines.map((l) => `${prefix}${l}\n`);
  const more = lines.length - ERROR_LINES_SHOWN;
  return [...lines.slice(0, ERROR_LINES_SHOWN).map((l) => `${prefix}${l}\n`), `${prefix}... and ${more} more (--json lists them all)\n`];
}

export function formatRatio(stored: number, raw: number): string {
  return raw === 0 ? '-' : `${((stored / raw) * 100).toFixed(1)}%`;
}

export type Align = 'left' | 'right';

/**
 * A plain-text table: header row, a rule, then rows; columns padded to their widest cell. Cells come from files
 * (names, mount points): control characters are shown escaped (`\u001b`), never written to the terminal. Built by appending to one
 * string (V8 joins the pieces once, when it is written): `list` renders thousands of rows and its start-up budget
 * is a few milliseconds.
 */
export function renderTable(headers: string[], rows: string[][], align: Align[]): string {
  let out = '';
  writeTable((t) => (out += t), headers, rows.length, (r, c) => rows[r]![c]!, align);
  return out;
}

/** Rows of a table written at a time (see writeTable). */
const ROWS_PER_WRITE = 2048;

/**
 * renderTable's text for `count` rows whose cells `cell(row, column)` gives, written to `out` a batch of rows at a
 * time: a long table (a 50,000-file pak's listing) needs no array of cells per row nor the whole table as one string
 * (~30 MB of that listing's peak). The cells are asked for twice (widths, then the text), so `cell` should make
 * them cheaply.
 */
export function writeTable(out: (text: string) => void, headers: readonly string[], count: number, cell: (row: number, column: number) => string, align: readonly Align[]): void {
  const n = headers.length;
  const widths = headers.map((h) => h.length);
  // Control characters are escaped (escaping leaves cells without one as they are).
  for (let r = 0; r < count; r++) {
    for (let c = 0; c < n; c++) {
      const w = escapeControl(cell(r, c)).length;
      if (w > widths[c]!) widths[c] = w;
    }
  }
  const right = align.map((a) => a === 'right');
  const line = (at: (c: number) => string): string => {
    let s = '';
    for (let c = 0; c < n; c++) {
      const text = at(c);
      if (c > 0) s += '  ';
      s += c === n - 1 && !right[c] ? text : right[c] ? text.padStart(widths[c]!) : text.padEnd(widths[c]!);
    }
    // Cells padded to the right leave trailing blanks when the last ones are empty.
    return s.charCodeAt(s.length - 1) === 32 ? s.trimEnd() : s;
  };
  let text = `${line((c) => headers[c]!)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`;
  for (let r = 0; r < count; r++) {
    text += `${line((c) => escapeControl(cell(r, c)))}\n`;
    if ((r + 1) % ROWS_PER_WRITE === 0) {
      out(text);
      text = '';
    }
  }
  if (text !== '') out(text);
}

/** RFC 4180 CSV. */
export function renderCsv(headers: string[], rows: Array<Array<string | number>>): string {
  const line = (r: Array<string | number>): string => {
    let s = '';
    for (let c = 0; c < r.length; c++) s += c === 0 ? csvCell(r[c]!) : `,${csvCell(r[c]!)}`;
    return s;
  };
  let out = line(headers);
  for (const r of rows) out += `\n${line(r)}`;
  return `${out}\n`;
}
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV cell: numbers as they are, text quoted when it holds a quote or comma. Control characters (line breaks
 * included) are escaped as in JSON (`\n`, `\u001b`): a name from a file must not move a terminal's cursor or split a
 * row; `--json` carries names exactly.
 */
export function csvCell(v: string | number): string {
  if (typeof v === 'number') return String(v);
  const text = escapeControl(v);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The CLI's JSON: src/util/json-text.ts. */
export { renderJson } from '../util/json-text.js';

export function hex64(v: bigint): string {
  return `0x${v.toString(16).padStart(16, '0')}`;
}

/**
 * How a table for a terminal fits its width: the `drop` columns go first, in order, while it is too wide (wide ones a
 * person rarely reads on a terminal: hashes, chunk ids), then the `shrink` column (a path) is shortened in the middle.
 */
export interface TableFit {
  width: number;
  shrink: number;
  drop?: readonly number[];
}

/** `Game/Content/Very/Long/…/Path.uasset`: the start and the end of a text of more than `width` characters. */
export function shortenMiddle(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 1) return '…'.slice(0, width);
  const tail = Math.floor((width - 1) / 2);
  return `${text.slice(0, width - 1 - tail)}…${tail > 0 ? text.slice(-tail) : ''}`;
}

/** renderTable, fitted to a terminal's width when `fit` is given (see TableFit). */
export function renderTableFit(headers: string[], rows: string[][], align: Align[], fit?: TableFit): string {
  if (!fit) return renderTable(headers, rows, align);
  let keep = headers.map((_, i) => i);
  const widths = headers.map((h, c) => {
    let w = h.length;
    for (const r of rows) if (r[c]!.length > w) w = r[c]!.length;
    return w;
  });
  const total = () => keep.reduce((a, c) => a + widths[c]!, 0) + 2 * (keep.length - 1);
  for (const d of fit.drop ?? []) {
    if (total() <= fit.width) break;
    keep = keep.filter((c) => c !== d);
  }
  // The path gives up what is still too wide, down to a few characters (a wider table wraps every line).
  const room = Math.max(Math.min(12, widths[fit.shrink]!), widths[fit.shrink]! - Math.max(0, total() - fit.width));
  const pick = <T>(a: readonly T[]) => keep.map((c) => a[c]!);
  const cells = rows.map((r) => keep.map((c) => (c === fit.shrink ? shortenMiddle(r[c]!, room) : r[c]!)));
  return renderTable(pick(headers), cells, pick(align));
}
