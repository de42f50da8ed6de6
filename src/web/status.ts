/** The status line (announced politely), the error strip (announced at once) and the progress bar. */
import { $, h } from './dom.js';

export function setStatus(text: string): void {
  $('status').textContent = text;
}

/** Shows the first line, and the rest behind "N more"; no lines hides the strip. */
export function setError(lines: string[]): void {
  const el = $('error');
  el.replaceChildren();
  if (lines.length === 0) {
    el.hidden = true;
    return;
  }
  el.hidden = false;
  el.append(h('span', {}, lines[0]!));
  if (lines.length > 1) el.append(h('details', {}, h('summary', {}, `${lines.length - 1} more`), ...lines.slice(1).map((l) => h('div', {}, l))));
}

export function setProgress(done: number, total: number, label: string): void {
  const p = $<HTMLProgressElement>('progress');
  p.hidden = total <= 0;
  p.max = Math.max(1, total);
  p.value = done;
  $('cancel').hidden = total <= 0;
  if (label) setStatus(label);
}
