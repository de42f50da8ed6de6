/**
 * The panes' sizes: splitters the user drags or moves with the arrow keys (ARIA separators), the folder tree shown
 * or hidden on narrow screens, and the summary charts folded where height is short.
 */
import { $ } from './dom.js';

interface Splitter {
  el: HTMLElement;
  /** The CSS variable on <body> that holds the size, in px. */
  variable: () => string;
  min: number;
  max: () => number;
  /** +1 when moving the pointer right (or down) grows the pane, -1 when it shrinks it. */
  sign: 1 | -1;
  initial: () => number;
}

/** Which way a splitter moves: the details pane sits under the table on narrow screens, beside it on wide ones. */
const stacked = () => window.matchMedia('(max-width: 1099px)').matches;

/** The size the user set, else the one the layout gives the pane now. */
function size(s: Splitter): number {
  const v = parseFloat(document.body.style.getPropertyValue(s.variable()));
  return Number.isFinite(v) ? v : s.initial();
}

/** Sets the pane's size (or, with `store` false, only tells assistive technology the size the layout gave it). */
function setSize(s: Splitter, px: number, store = true): void {
  const v = Math.round(Math.max(s.min, Math.min(s.max(), px)));
  if (store) document.body.style.setProperty(s.variable(), `${v}px`);
  s.el.setAttribute('aria-valuenow', String(v));
  s.el.setAttribute('aria-valuemin', String(s.min));
  s.el.setAttribute('aria-valuemax', String(Math.round(s.max())));
  if (store) window.dispatchEvent(new Event('resize'));
}

function wireSplitter(s: Splitter, vertical: () => boolean): void {
  const refresh = () => {
    s.el.setAttribute('aria-orientation', vertical() ? 'vertical' : 'horizontal');
    setSize(s, size(s), false);
  };
  s.el.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    s.el.setPointerCapture(e.pointerId);
    const start = vertical() ? e.clientX : e.clientY;
    const from = size(s);
    const move = (m: PointerEvent) => setSize(s, from + s.sign * ((vertical() ? m.clientX : m.clientY) - start));
    const up = () => {
      s.el.removeEventListener('pointermove', move);
      s.el.removeEventListener('pointerup', up);
      s.el.removeEventListener('pointercancel', up);
    };
    s.el.addEventListener('pointermove', move);
    s.el.addEventListener('pointerup', up);
    s.el.addEventListener('pointercancel', up);
  });
  s.el.addEventListener('keydown', (e) => {
    const grow: Record<string, number> = vertical() ? { ArrowRight: 1, ArrowLeft: -1 } : { ArrowDown: 1, ArrowUp: -1 };
    const step = grow[e.key];
    if (step !== undefined) setSize(s, size(s) + s.sign * step * (e.shiftKey ? 64 : 16));
    else if (e.key === 'Home') setSize(s, s.min);
    else if (e.key === 'End') setSize(s, s.max());
    else return;
    e.preventDefault();
  });
  window.addEventListener('resize', refresh);
  s.el.addEventListener('focus', refresh);
  refresh();
}

export function wireLayout(): void {
  const workspace = () => $('workspace').getBoundingClientRect();
  wireSplitter(
    { el: $('split-tree'), variable: () => '--tree-w', min: 120, max: () => Math.max(160, workspace().width * 0.45), sign: 1, initial: () => $('tree-pane').getBoundingClientRect().width || 240 },
    () => true,
  );
  wireSplitter(
    {
      el: $('split-side'),
      variable: () => (stacked() ? '--side-h' : '--side-w'),
      min: 160,
      max: () => (stacked() ? workspace().height - 120 : workspace().width - 320),
      sign: -1,
      initial: () => (stacked() ? $('side').getBoundingClientRect().height : $('side').getBoundingClientRect().width) || 380,
    },
    () => !stacked(),
  );

  // Narrow screens show the folder tree on demand.
  const toggle = $<HTMLButtonElement>('toggle-tree');
  toggle.addEventListener('click', () => {
    const open = toggle.getAttribute('aria-expanded') !== 'true';
    toggle.setAttribute('aria-expanded', String(open));
    document.body.classList.toggle('tree-open', open);
    window.dispatchEvent(new Event('resize'));
  });
  // The charts are folded where they would leave the table little room, until the user opens or folds them.
  const charts = $<HTMLDetailsElement>('charts-box');
  let chosen = false;
  const fit = () => {
    if (!chosen) charts.open = window.innerHeight >= 760 && window.innerWidth >= 700;
  };
  charts.querySelector('summary')!.addEventListener('click', () => {
    chosen = true;
  });
  charts.addEventListener('toggle', () => window.dispatchEvent(new Event('resize')));
  window.addEventListener('resize', fit);
  fit();
}
