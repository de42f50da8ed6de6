/**
 * The table of rows: a virtualised ARIA grid (only the rows in view exist), sorted by a column header, narrowed by
 * the folder tree and the filter. The grid keeps the focus and points at the selected row (aria-activedescendant);
 * arrows, Page keys and Home/End move the selection, Enter goes to the details of the selected row.
 */
import picomatch from 'picomatch';
import { $, fitText, fmtBytes, fmtInt, h } from './dom.js';
import { showSubject } from './details.js';
import { state, type SortKey } from './state.js';
import type { Row } from './session.js';
import { rowSubject } from './subject.js';

export const ROW_H = 22;
/** The sticky header row above the rows, inside the scrolled grid. */
const HEAD_H = 24;

/** The table's font size (style.css), to fit container labels to their column. */
const TABLE_FONT = '13px';

const SORT_NAMES: Record<string, 'ascending' | 'descending'> = { asc: 'ascending', desc: 'descending' };

export function applyView(): void {
  const rows = state.loaded?.rows ?? [];
  const f = state.filter.trim();
  const glob = /[*?[\]{}]/.test(f) ? picomatch(f, { nocase: true, dot: true, contains: true }) : undefined;
  const needle = f.toLowerCase();
  const folder = state.folder.toLowerCase();
  const keep: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    if (r.overridden && !state.showOverridden) continue;
    const lp = r.path.toLowerCase();
    if (folder && !lp.startsWith(folder)) continue;
    if (f && !(glob ? glob(r.path) : lp.includes(needle) || r.type.toLowerCase() === needle)) continue;
    keep.push(i);
  }
  const { key, dir } = state.sort;
  const labels = state.loaded?.containers.map((c) => c.label) ?? [];
  const val = (r: Row): string | number => (key === 'container' ? labels[r.container]! : r[key]);
  keep.sort((a, b) => {
    const x = val(rows[a]!);
    const y = val(rows[b]!);
    const c = x < y ? -1 : x > y ? 1 : 0;
    return c * dir || a - b;
  });
  state.view = Int32Array.from(keep);
  document.body.dataset.filter = state.filter;
  $('count').textContent = `${fmtInt(keep.length)} of ${fmtInt(rows.length)} rows`;
  for (const th of document.querySelectorAll<HTMLElement>('#thead [data-key]')) {
    const sort = th.dataset.key === key ? (dir > 0 ? 'asc' : 'desc') : '';
    th.dataset.sort = sort;
    if (sort) th.setAttribute('aria-sort', SORT_NAMES[sort]!);
    else th.removeAttribute('aria-sort');
  }
  $('scroller').setAttribute('aria-rowcount', String(keep.length + 1));
  $('spacer').style.height = `${keep.length * ROW_H}px`;
  renderRows(true);
}

let room = -1;
/**
 * The Container column's room for text, less the cell's padding. It depends on the layout, so it is measured after
 * each resize, in the next frame: measuring while the table is being built would force a layout of the whole page.
 */
function containerRoom(): number {
  if (room === -1) {
    room = -2;
    requestAnimationFrame(() => {
      room = Math.max(40, ($('thead').querySelector('.c-cont') as HTMLElement).clientWidth - 10);
      renderRows(true);
    });
  }
  return room;
}

let lastFirst = -1;
export function renderRows(force = false): void {
  const sc = $('scroller');
  const first = Math.max(0, Math.floor(sc.scrollTop / ROW_H) - 10);
  if (!force && first === lastFirst) return;
  lastFirst = first;
  const count = Math.ceil(sc.clientHeight / ROW_H) + 20;
  const rows = state.loaded?.rows ?? [];
  const containers = state.loaded?.containers ?? [];
  const room = containerRoom();
  const win = $('window');
  win.style.transform = `translateY(${first * ROW_H}px)`;
  const frag = document.createDocumentFragment();
  for (let k = first; k < Math.min(state.view.length, first + count); k++) {
    const idx = state.view[k]!;
    const r = rows[idx]!;
    const c = containers[r.container]!;
    const selected = idx === state.selected;
    const tr = h('div', { class: `tr${selected ? ' sel' : ''}${r.overridden ? ' over' : ''}`, role: 'row', id: `row-${idx}`, 'aria-rowindex': String(k + 2), 'aria-selected': String(selected), 'data-row': String(idx) },
      h('span', { class: 'c-path', role: 'gridcell', title: r.path }, h('bdi', {}, r.path)),
      h('span', { class: 'c-type', role: 'gridcell' }, r.type),
      h('span', { class: 'c-num c-size', role: 'gridcell' }, fmtBytes(r.size)),
      h('span', { class: 'c-num c-stored', role: 'gridcell' }, fmtBytes(r.stored)),
      h('span', { class: 'c-comp', role: 'gridcell' }, r.compression),
      h('span', { class: 'c-cont', role: 'gridcell', title: c.path }, room > 0 ? fitText(c.short, room, TABLE_FONT) : c.short),
    );
    frag.append(tr);
  }
  win.replaceChildren(frag);
  pointAtSelection();
}

/** The grid's active descendant follows the selection while its row is rendered. */
function pointAtSelection(): void {
  const sc = $('scroller');
  if (state.selected >= 0 && document.getElementById(`row-${state.selected}`)) sc.setAttribute('aria-activedescendant', `row-${state.selected}`);
  else sc.removeAttribute('aria-activedescendant');
}

/** Scrolls so that position `k` of the view is fully below the header and above the bottom edge. */
function scrollIntoView(k: number): void {
  const sc = $('scroller');
  const visible = sc.clientHeight - HEAD_H;
  if (k * ROW_H < sc.scrollTop) sc.scrollTop = k * ROW_H;
  else if ((k + 1) * ROW_H > sc.scrollTop + visible) sc.scrollTop = (k + 1) * ROW_H - visible;
}

let detailTimer = 0;
/** Selects a row and shows it; `soon` waits a moment first, so that holding an arrow key does not read every row. */
export function selectRow(idx: number, soon = false): void {
  const loaded = state.loaded;
  if (!loaded || !loaded.rows[idx]) return;
  state.selected = idx;
  renderRows(true);
  clearTimeout(detailTimer);
  const show = () => {
    if (state.loaded !== loaded || state.selected !== idx) return;
    void showSubject(rowSubject(loaded, state.ctx!, idx, state.key, state.generation));
  };
  if (soon) detailTimer = window.setTimeout(show, 60);
  else show();
}

function moveSelection(step: number): void {
  if (state.view.length === 0) return;
  const at = state.view.indexOf(state.selected);
  const next = Math.max(0, Math.min(state.view.length - 1, at < 0 ? 0 : at + step));
  scrollIntoView(next);
  selectRow(state.view[next]!, true);
}

function sortBy(key: SortKey): void {
  state.sort = state.sort.key === key ? { key, dir: state.sort.dir === 1 ? -1 : 1 } : { key, dir: key === 'size' || key === 'stored' ? -1 : 1 };
  applyView();
}

export function wireTable(): void {
  $('thead').addEventListener('click', (e) => {
    const key = (e.target as HTMLElement).closest<HTMLElement>('[data-key]')?.dataset.key as SortKey | undefined;
    if (key) sortBy(key);
  });
  const sc = $('scroller');
  sc.addEventListener('scroll', () => requestAnimationFrame(() => renderRows()));
  window.addEventListener('resize', () => {
    room = -1;
    renderRows(true);
  });
  $('window').addEventListener('click', (e) => {
    const tr = (e.target as HTMLElement).closest<HTMLElement>('[data-row]');
    if (!tr) return;
    sc.focus({ preventScroll: true });
    selectRow(Number(tr.dataset.row));
  });
  const steps: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: 20, PageUp: -20, Home: -Infinity, End: Infinity };
  sc.addEventListener('keydown', (e) => {
    // Keys meant for a column header's button stay with it.
    if ((e.target as HTMLElement).closest('#thead')) return;
    const step = steps[e.key];
    if (step !== undefined) {
      e.preventDefault();
      moveSelection(step === 20 || step === -20 ? Math.sign(step) * Math.max(1, Math.floor((sc.clientHeight - HEAD_H) / ROW_H) - 1) : step);
    } else if (e.key === 'Enter' && state.selected >= 0) {
      e.preventDefault();
      // To the details of the selected row: its first tab, or its first button.
      const target = document.querySelector<HTMLElement>('#details [role="tab"][aria-selected="true"], #details button') ?? $('details');
      target.focus();
    }
  });
  // Escape in the side pane goes back to the table, on the row it shows.
  $('side').addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || state.view.length === 0) return;
    e.preventDefault();
    sc.focus();
  });
}
