/** Small DOM helpers the page's modules share: element lookup and creation, number formats, tables, paths. */
import { formatBytes } from '../util/format-bytes.js';

export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') el.className = v;
    else el.setAttribute(k, v);
  }
  el.append(...children);
  return el;
}

export const fmtBytes = (n: number): string => formatBytes(n, { precise: true });
export const fmtInt = (n: number) => n.toLocaleString('en-US');

/**
 * A path or object path that may wrap after its separators (`/`, `.`, `:`) rather than inside a name: long paths
 * break where a reader expects, names only when one alone is wider than its column.
 */
export function wrappingText(text: string, cls = ''): HTMLElement {
  const el = h('span', cls ? { class: cls } : {});
  for (const piece of text.split(/(?<=[/.:\\])/)) el.append(piece, h('wbr'));
  return el;
}

/** A table; the columns in `numeric` keep their figures on one line, right-aligned. */
export function table(head: string[], rows: Array<Array<string | Node>>, cls = '', numeric: readonly number[] = []): HTMLTableElement {
  const at = (k: number): Record<string, string> => (numeric.includes(k) ? { class: 'num' } : {});
  const headRow = head.every((x) => x === '') ? [] : [h('thead', {}, h('tr', {}, ...head.map((x, k) => h('th', { scope: 'col', ...at(k) }, x))))];
  return h('table', { class: cls ? `kv ${cls}` : 'kv' }, ...headRow, h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((x, k) => h('td', at(k), x))))));
}

/** Two-column facts (label, value) with the labels as row headers. */
export function facts(rows: Array<[string, string | Node]>, cls = ''): HTMLTableElement {
  return h('table', { class: `kv facts${cls ? ` ${cls}` : ''}` }, h('tbody', {}, ...rows.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, typeof v === 'string' ? wrappingText(v) : v)))));
}

/** An object path with its class below it, both wrapping after separators. */
export function objectCell(path: string, cls: string): Node {
  return h('div', {}, wrappingText(path, 'path'), ...(cls ? [h('div', {}, wrappingText(cls, 'cls'))] : []));
}

/** Waits for the next frame, so that a long task lets the page paint and take input. */
export const nextFrame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));

/** Hands a Blob to the browser's download, under `name`. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

let measurer: CanvasRenderingContext2D | null | undefined;
let pageFont: string | undefined;
const fitted = new Map<string, string>();

/**
 * `text` cut in the middle (`Minimal-Oo…Windows.utoc`) to fit `px` pixels at font size `size`, measured: both ends of a
 * file name tell files apart, so both stay.
 */
export function fitText(text: string, px: number, size: string): string {
  const font = `${size} ${(pageFont ??= getComputedStyle(document.body).fontFamily)}`;
  const key = `${font}|${px}|${text}`;
  const known = fitted.get(key);
  if (known !== undefined) return known;
  measurer ??= document.createElement('canvas').getContext('2d');
  let out = text;
  if (measurer) {
    measurer.font = font;
    const fits = (s: string) => measurer!.measureText(s).width <= px;
    if (!fits(text)) {
      let keep = text.length - 1;
      const cut = (n: number) => `${text.slice(0, Math.floor(n / 2))}…${text.slice(text.length - Math.ceil(n / 2))}`;
      while (keep > 2 && !fits(cut(keep))) keep--;
      out = cut(keep);
    }
  }
  if (fitted.size > 2000) fitted.clear();
  fitted.set(key, out);
  return out;
}
