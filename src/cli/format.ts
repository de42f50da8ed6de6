export { formatBytes } from '../util/format-bytes.js';

export function formatRatio(stored: number, raw: number): string {
  return raw === 0 ? '-' : `${((stored / raw) * 100).toFixed(1)}%`;
}

export type Align = 'left' | 'right';

/** A plain-text table: header row, a rule, then rows; columns padded to their widest cell. */
export function renderTable(headers: string[], rows: string[][], align: Align[]): string {
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (align[c] === 'right' ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd();
  const out = [line(headers), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const r of rows) out.push(line(r));
  return `${out.join('\n')}\n`;
}

/** RFC 4180 CSV. */
export function renderCsv(headers: string[], rows: Array<Array<string | number>>): string {
  const cell = (v: string | number) => {
    const s = String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return `${[headers, ...rows].map((r) => r.map(cell).join(',')).join('\n')}\n`;
}

/** Pretty JSON with a trailing newline; bigints are written as strings. */
export function renderJson(value: unknown): string {
  return `${JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`;
}

export function hex64(v: bigint): string {
  return `0x${v.toString(16).padStart(16, '0')}`;
}
