import { escapeControl } from '../util/quote.js';
import type { Align } from './format.js';

/** Rows of a table written at a time (see writeTable). */
const ROWS_PER_WRITE = 2048;

/**
 * renderTable's text for `count` rows whose cells `cell(row, column)` gives, written to `out` a batch of rows at a
 * time: no array of cells per row nor the whole table as one string (a 50,000-file pak's listing had held both, ~30
 * MB of its peak). The cells are asked for twice (widths, then the text), so `cell` should make them cheaply.
 */
export function writeTable(out: (text: string) => void, headers: readonly string[], count: number, cell: (row: number, column: number) => string, align: readonly Align[]): void {
  const n = headers.length;
  const widths = headers.map((h) => h.length);
  // A control character is escaped as renderTable escapes the rows that hold one (escaping leaves other cells as they are).
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
