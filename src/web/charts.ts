/** The summary above the table: bytes by chunk type and by container, raw and stored, drawn to the width at hand. */
import { $, fitText, fmtBytes } from './dom.js';
import { state } from './state.js';

const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
const NS = 'http://www.w3.org/2000/svg';

interface Bar {
  label: string;
  /** The whole name, for the tooltip and the chart's description. */
  full: string;
  size: number;
  stored: number;
}

/** The size of the bar labels (style.css, `#charts svg text.cl`), to fit them to their room. */
const CHART_FONT = '10.5px';

function barChart(title: string, data: Bar[], W: number): SVGSVGElement {
  const top = data.slice(0, 8);
  const max = Math.max(1, ...top.map((d) => d.size));
  const lw = Math.round(W * 0.44);
  const valueW = 64;
  const rowH = 16;
  const H = 22 + top.length * rowH;
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('width', String(W));
  svg.setAttribute('height', String(H));
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `${title}: ${top.map((d) => `${d.full} ${fmtBytes(d.size)}`).join(', ')}`);
  const text = (x: number, y: number, s: string, cls: string) => {
    const e = document.createElementNS(NS, 'text');
    e.setAttribute('x', String(x));
    e.setAttribute('y', String(y));
    e.setAttribute('class', cls);
    e.textContent = s;
    svg.append(e);
    return e;
  };
  text(0, 12, title, 'ct');
  const room = W - lw - valueW;
  top.forEach((d, i) => {
    const y = 20 + i * rowH;
    const w = (room * d.size) / max;
    const ws = (room * d.stored) / max;
    const label = text(lw - 6, y + 11, fitText(d.label, lw - 8, CHART_FONT), 'cl');
    const tip = document.createElementNS(NS, 'title');
    tip.textContent = `${d.full}: ${fmtBytes(d.size)} raw, ${fmtBytes(d.stored)} stored`;
    label.append(tip);
    for (const [width, opacity] of [[w, '0.45'], [ws, '1']] as const) {
      const bar = document.createElementNS(NS, 'rect');
      bar.setAttribute('x', String(lw));
      bar.setAttribute('y', String(y + 2));
      bar.setAttribute('width', String(Math.max(1, width)));
      bar.setAttribute('height', String(rowH - 4));
      bar.setAttribute('fill', PALETTE[i % PALETTE.length]!);
      bar.setAttribute('opacity', opacity);
      bar.append(tip.cloneNode(true));
      svg.append(bar);
    }
    text(lw + Math.max(w, ws) + 4, y + 11, fmtBytes(d.size), 'cv');
  });
  return svg;
}

let drawnWidth = 0;

export function renderCharts(): void {
  const loaded = state.loaded;
  const box = $('charts');
  if (!loaded) {
    box.replaceChildren();
    return;
  }
  const byType = new Map<string, Bar>();
  const byCont = new Map<number, Bar>();
  for (const r of loaded.rows) {
    if (r.overridden) continue;
    let t = byType.get(r.type);
    if (!t) byType.set(r.type, (t = { label: r.type, full: r.type, size: 0, stored: 0 }));
    t.size += r.size;
    t.stored += r.stored;
    let c = byCont.get(r.container);
    const cont = loaded.containers[r.container]!;
    if (!c) byCont.set(r.container, (c = { label: cont.short, full: cont.path, size: 0, stored: 0 }));
    c.size += r.size;
    c.stored += r.stored;
  }
  const sortDesc = (m: Map<unknown, Bar>) => [...m.values()].sort((a, b) => b.size - a.size);
  // Two charts side by side when each gets 300 px, else one under the other at the full width.
  const avail = Math.max(240, box.clientWidth - 24);
  const W = Math.min(520, avail >= 620 ? Math.floor((avail - 18) / 2) : avail);
  drawnWidth = box.clientWidth;
  box.replaceChildren(barChart('Bytes by chunk type (light: raw, dark: stored)', sortDesc(byType), W), barChart('Bytes by container', sortDesc(byCont), W));
}

/** Redraws when the space for the charts changes (a resized window or pane). */
export function wireCharts(): void {
  new ResizeObserver(() => {
    const box = $('charts');
    if (box.clientWidth > 0 && Math.abs(box.clientWidth - drawnWidth) > 8) renderCharts();
  }).observe($('charts'));
}
