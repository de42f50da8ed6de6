/** The hex tab: 64 KiB pages of any file, 16 bytes a line with their offsets and text. */
import { fmtInt, h } from '../dom.js';
import type { Subject } from '../subject.js';
import type { SubjectView, ViewContext } from './view.js';

const HEX_PAGE = 64 * 1024;

export function hexDump(bytes: Uint8Array, base: number): string {
  const lines: string[] = [];
  for (let o = 0; o < bytes.length; o += 16) {
    const slice = bytes.subarray(o, o + 16);
    const hex = Array.from(slice, (b) => b.toString(16).padStart(2, '0')).join(' ');
    const asc = Array.from(slice, (b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${(base + o).toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${asc}`);
  }
  return lines.join('\n');
}

async function page(s: Subject, cx: ViewContext, from: number): Promise<void> {
  const len = Math.min(HEX_PAGE, s.size - from);
  const bytes = len > 0 ? await s.read(from, len) : new Uint8Array(0);
  const nav = h('div', { class: 'buttons' });
  const go = (label: string, to: number) => {
    const b = h('button', { type: 'button' }, label);
    b.addEventListener('click', () => void page(s, cx, to).then(() => document.querySelector<HTMLElement>('#view pre.hex')?.focus()));
    nav.append(b);
  };
  if (from > 0) go('◀ previous 64 KiB', Math.max(0, from - HEX_PAGE));
  if (from + len < s.size) go('next 64 KiB ▶', from + HEX_PAGE);
  nav.append(h('span', {}, `bytes ${fmtInt(from)}–${fmtInt(from + len)} of ${fmtInt(s.size)}`));
  cx.show(nav, h('pre', { class: 'hex', tabindex: '0', 'aria-label': `Bytes ${from} to ${from + len} in hexadecimal` }, hexDump(bytes, from)));
}

export const hexTab: SubjectView = {
  id: 'hex',
  label: 'Hex',
  applies: () => true,
  render: (s, cx) => page(s, cx, 0),
};
