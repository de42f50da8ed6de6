/**
 * The page: drop or pick a Paks folder, browse what its containers mount, look inside packages and chunks, and
 * extract to a .zip. Everything happens in this tab; files are read in slices and never leave the machine.
 */
import picomatch from 'picomatch';
import { parseAesKey } from '../crypto/aes.js';
import type { ContainerHeaderView } from '../inspect/describe.js';
import { containerInfo } from '../toc/listing.js';
import { formatBytes } from '../util/format-bytes.js';
import { isLegacyView, PackageContext, viewLoosePackage, type AnyPackageView } from './package-view.js';
import type { LegacyPackageView } from '../legacy/describe.js';
import { loadFiles, oneLine, readRow, rowPieces, unreadable, verifyChunk, type InputFile, type LoadResult, type Row } from './session.js';
import { blobSink, writableSink, zipEntries, type ZipEntrySource, type ZipSink } from './zip.js';

const ROW_H = 22;
const TEXT_EXT = /\.(ini|json|txt|csv|xml|html?|md|log|uproject|uplugin|cfg|lua|py|js|yaml|yml|po|locmeta)$/i;
const HEX_PAGE = 64 * 1024;

type SortKey = 'path' | 'type' | 'size' | 'stored' | 'compression' | 'container';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') el.className = v;
    else el.setAttribute(k, v);
  }
  el.append(...children);
  return el;
}

const fmtBytes = (n: number): string => formatBytes(n, { precise: true });
const fmtInt = (n: number) => n.toLocaleString('en-US');

interface State {
  files: InputFile[];
  key?: Uint8Array;
  loaded?: LoadResult;
  ctx?: PackageContext;
  /** Indices into loaded.rows, after folder, filter and sort. */
  view: Int32Array;
  sort: { key: SortKey; dir: 1 | -1 };
  folder: string;
  filter: string;
  showOverridden: boolean;
  selected: number;
  busy: boolean;
  cancel: boolean;
}

const state: State = { files: [], view: new Int32Array(0), sort: { key: 'path', dir: 1 }, folder: '', filter: '', showOverridden: false, selected: -1, busy: false, cancel: false };

/** Figures the tests read: when the last drop started and when its table was on screen. */
const perf = { dropAt: 0, tableMs: -1 };
(window as unknown as { iostoreWeb: unknown }).iostoreWeb = { perf, state };

// ---------- status line, errors, progress ----------

function setStatus(text: string): void {
  $('status').textContent = text;
}

function setError(lines: string[]): void {
  const el = $('error');
  el.replaceChildren();
  if (lines.length === 0) {
    el.hidden = true;
    return;
  }
  el.hidden = false;
  el.append(h('span', {}, lines[0]!));
  if (lines.length > 1) {
    const more = h('details', {}, h('summary', {}, `${lines.length - 1} more`), ...lines.slice(1).map((l) => h('div', {}, l)));
    el.append(more);
  }
}

function setProgress(done: number, total: number, label: string): void {
  const p = $<HTMLProgressElement>('progress');
  p.hidden = total <= 0;
  p.max = Math.max(1, total);
  p.value = done;
  $('cancel').hidden = total <= 0;
  if (label) setStatus(label);
}

// ---------- input: drop, folder picker, files picker ----------

async function filesFromDrop(dt: DataTransfer): Promise<InputFile[]> {
  const entries = [...dt.items].map((i) => i.webkitGetAsEntry?.()).filter((e): e is FileSystemEntry => !!e);
  if (entries.length === 0) return [...dt.files].map((f) => ({ path: f.name, file: f }));
  const out: InputFile[] = [];
  const walk = async (e: FileSystemEntry): Promise<void> => {
    if (e.isFile) {
      const file = await new Promise<File>((res, rej) => (e as FileSystemFileEntry).file(res, rej));
      out.push({ path: e.fullPath.replace(/^\//, ''), file });
    } else if (e.isDirectory) {
      const reader = (e as FileSystemDirectoryEntry).createReader();
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
        if (batch.length === 0) break;
        for (const c of batch) await walk(c);
      }
    }
  };
  for (const e of entries) await walk(e);
  return out;
}

function filesFromInput(list: FileList | null): InputFile[] {
  return [...(list ?? [])].map((f) => ({ path: f.webkitRelativePath || f.name, file: f }));
}

function keyFromField(): Uint8Array | undefined | 'bad' {
  const text = $<HTMLInputElement>('key').value.trim();
  if (!text) return undefined;
  try {
    return parseAesKey(text);
  } catch {
    return 'bad';
  }
}

async function open(files: InputFile[]): Promise<void> {
  perf.dropAt = performance.now();
  perf.tableMs = -1;
  const relevant = files.filter((f) => /\.(utoc|ucas|pak|uasset|umap|uzenasset|uexp|ubulk)$/i.test(f.path));
  if (relevant.length === 0) {
    setError([files.length ? `none of the ${files.length} file(s) is a .utoc, .ucas, .pak, .uasset or .uzenasset` : 'nothing was dropped']);
    return;
  }
  state.files = relevant;
  await reload();
}

async function reload(): Promise<void> {
  const key = keyFromField();
  if (key === 'bad') {
    setError(['AES key: expected 64 hex digits (optionally 0x-prefixed) or base64 of 32 bytes']);
    return;
  }
  state.key = key;
  setStatus(`Reading ${state.files.length} file(s)…`);
  const loaded = await loadFiles(state.files, key, (s) => setStatus(s));
  state.loaded = loaded;
  state.ctx = new PackageContext(loaded.containers);
  state.selected = -1;
  state.folder = '';
  $('empty').hidden = true;
  $('workspace').hidden = false;
  const problems = [...loaded.errors, ...loaded.containers.flatMap((c) => c.problems)];
  setError(problems);
  $('key').classList.toggle('need', problems.some((p) => /AES key/.test(p)));
  applyView();
  renderTree();
  renderCharts();
  renderContainers();
  const chunks = loaded.rows.length;
  const looseOnly = loaded.containers.length === 0 && loaded.looseFiles.length > 0;
  setStatus(looseOnly ? `${loaded.looseFiles.length} loose package(s)` : `${loaded.containers.length} container(s), ${fmtInt(chunks)} rows`);
  requestAnimationFrame(() => {
    perf.tableMs = performance.now() - perf.dropAt;
    document.body.dataset.tableMs = perf.tableMs.toFixed(0);
    document.body.dataset.ready = '1';
  });
  if (looseOnly) {
    // No container, so no rows: say where the packages went rather than show a bare "0 of 0 rows".
    $('count').textContent = 'no container: see Details';
    await showLoose(loaded.looseFiles[0]!);
  }
}

// ---------- the table ----------

function applyView(): void {
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
  const names = state.loaded?.containers.map((c) => c.name) ?? [];
  const val = (r: Row): string | number => (key === 'container' ? names[r.container]! : r[key]);
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
    th.dataset.sort = th.dataset.key === key ? (dir > 0 ? 'asc' : 'desc') : '';
  }
  $('spacer').style.height = `${keep.length * ROW_H}px`;
  renderRows(true);
}

let lastFirst = -1;
function renderRows(force = false): void {
  const sc = $('scroller');
  const first = Math.max(0, Math.floor(sc.scrollTop / ROW_H) - 10);
  if (!force && first === lastFirst) return;
  lastFirst = first;
  const count = Math.ceil(sc.clientHeight / ROW_H) + 20;
  const rows = state.loaded?.rows ?? [];
  const names = state.loaded?.containers.map((c) => c.name) ?? [];
  const win = $('window');
  win.style.transform = `translateY(${first * ROW_H}px)`;
  const frag = document.createDocumentFragment();
  for (let k = first; k < Math.min(state.view.length, first + count); k++) {
    const idx = state.view[k]!;
    const r = rows[idx]!;
    const tr = h('div', { class: `tr${idx === state.selected ? ' sel' : ''}${r.overridden ? ' over' : ''}`, 'data-row': String(idx) },
      h('span', { class: 'c-path', title: r.path }, h('bdi', {}, r.path)),
      h('span', { class: 'c-type' }, r.type),
      h('span', { class: 'c-num' }, fmtBytes(r.size)),
      h('span', { class: 'c-num' }, fmtBytes(r.stored)),
      h('span', { class: 'c-comp' }, r.compression),
      h('span', { class: 'c-cont', title: names[r.container]! }, names[r.container]!),
    );
    frag.append(tr);
  }
  win.replaceChildren(frag);
}

// ---------- the tree of mounted paths ----------

interface Dir {
  name: string;
  path: string;
  dirs: Map<string, Dir>;
  files: number;
  bytes: number;
}

function buildTree(rows: readonly Row[]): Dir {
  const root: Dir = { name: 'All', path: '', dirs: new Map(), files: 0, bytes: 0 };
  for (const r of rows) {
    if (r.overridden) continue;
    let d = root;
    d.files++;
    d.bytes += r.size;
    const parts = r.path.split('/');
    for (let i = 0; i < parts.length - 1; i++) {
      let next = d.dirs.get(parts[i]!);
      if (!next) d.dirs.set(parts[i]!, (next = { name: parts[i]!, path: `${d.path}${parts[i]}/`, dirs: new Map(), files: 0, bytes: 0 }));
      d = next;
      d.files++;
      d.bytes += r.size;
    }
  }
  return root;
}

function treeNode(d: Dir, open: boolean): HTMLElement {
  const kids = h('div', { class: 'kids' });
  const toggle = h('span', { class: 'tog' }, d.dirs.size ? (open ? '▾' : '▸') : '·');
  const label = h('span', { class: `lbl${state.folder === d.path ? ' sel' : ''}`, 'data-folder': d.path, title: `${d.path || '/'}: ${fmtInt(d.files)} files, ${fmtBytes(d.bytes)}` }, d.name, h('small', {}, ` ${fmtInt(d.files)}`));
  const node = h('div', { class: 'node' }, h('div', { class: 'line' }, toggle, label), kids);
  const fill = () => {
    const sorted = [...d.dirs.values()].sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1));
    kids.replaceChildren(...sorted.map((c) => treeNode(c, false)));
  };
  if (open) fill();
  toggle.addEventListener('click', () => {
    if (!d.dirs.size) return;
    const opening = kids.childElementCount === 0;
    if (opening) fill();
    else kids.replaceChildren();
    toggle.textContent = opening ? '▾' : '▸';
  });
  label.addEventListener('click', () => {
    state.folder = d.path;
    document.querySelectorAll('#tree .lbl.sel').forEach((e) => e.classList.remove('sel'));
    label.classList.add('sel');
    $('folder').textContent = d.path || 'all';
    $('scroller').scrollTop = 0;
    applyView();
  });
  return node;
}

function renderTree(): void {
  const root = buildTree(state.loaded?.rows ?? []);
  const el = treeNode(root, true);
  $('tree').replaceChildren(el);
  // Open the first levels the way a Paks folder reads: each top folder, then down any single-child chain
  // (Game/Content/...), so the first screen shows where the files are.
  const openChain = (node: HTMLElement, d: Dir) => {
    let kids = node.querySelector(':scope > .kids')!;
    while (d.dirs.size === 1) {
      d = [...d.dirs.values()][0]!;
      const child = kids.firstElementChild as HTMLElement;
      (child.querySelector('.tog') as HTMLElement).click();
      kids = child.querySelector(':scope > .kids')!;
    }
  };
  if (root.dirs.size <= 4) {
    const tops = [...el.querySelector(':scope > .kids')!.children] as HTMLElement[];
    const sorted = [...root.dirs.values()].sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1));
    tops.forEach((node, i) => {
      const d = sorted[i]!;
      if (d.dirs.size === 0) return;
      (node.querySelector('.tog') as HTMLElement).click();
      openChain(node, d);
    });
  } else openChain(el, root);
  $('folder').textContent = 'all';
}

// ---------- summary charts ----------

const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

function barChart(title: string, data: Array<{ label: string; size: number; stored: number }>): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const top = data.slice(0, 8);
  const max = Math.max(1, ...top.map((d) => d.size));
  const W = 420;
  const lw = 150;
  const rowH = 16;
  const H = 22 + top.length * rowH;
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('width', String(W));
  svg.setAttribute('height', String(H));
  svg.setAttribute('role', 'img');
  const t = (x: number, y: number, s: string, cls: string) => {
    const e = document.createElementNS(ns, 'text');
    e.setAttribute('x', String(x));
    e.setAttribute('y', String(y));
    e.setAttribute('class', cls);
    e.textContent = s;
    svg.append(e);
  };
  t(0, 12, title, 'ct');
  top.forEach((d, i) => {
    const y = 20 + i * rowH;
    const w = ((W - lw - 70) * d.size) / max;
    const ws = ((W - lw - 70) * d.stored) / max;
    const label = d.label.length > 21 ? `${d.label.slice(0, 6)}…${d.label.slice(-14)}` : d.label;
    t(lw - 6, y + 11, label, 'cl');
    const bar = document.createElementNS(ns, 'rect');
    bar.setAttribute('x', String(lw));
    bar.setAttribute('y', String(y + 2));
    bar.setAttribute('width', String(Math.max(1, w)));
    bar.setAttribute('height', String(rowH - 4));
    bar.setAttribute('fill', PALETTE[i % PALETTE.length]!);
    bar.setAttribute('opacity', '0.45');
    const inner = document.createElementNS(ns, 'rect');
    inner.setAttribute('x', String(lw));
    inner.setAttribute('y', String(y + 2));
    inner.setAttribute('width', String(Math.max(1, ws)));
    inner.setAttribute('height', String(rowH - 4));
    inner.setAttribute('fill', PALETTE[i % PALETTE.length]!);
    const tip = document.createElementNS(ns, 'title');
    tip.textContent = `${d.label}: ${fmtBytes(d.size)} raw, ${fmtBytes(d.stored)} stored`;
    bar.append(tip);
    svg.append(bar, inner);
    t(lw + Math.max(w, ws) + 4, y + 11, fmtBytes(d.size), 'cv');
  });
  return svg;
}

function renderCharts(): void {
  const loaded = state.loaded!;
  const byType = new Map<string, { label: string; size: number; stored: number }>();
  const byCont = new Map<number, { label: string; size: number; stored: number }>();
  for (const r of loaded.rows) {
    if (r.overridden) continue;
    let t = byType.get(r.type);
    if (!t) byType.set(r.type, (t = { label: r.type, size: 0, stored: 0 }));
    t.size += r.size;
    t.stored += r.stored;
    let c = byCont.get(r.container);
    if (!c) byCont.set(r.container, (c = { label: loaded.containers[r.container]!.name, size: 0, stored: 0 }));
    c.size += r.size;
    c.stored += r.stored;
  }
  const sortDesc = (m: Map<unknown, { label: string; size: number; stored: number }>) => [...m.values()].sort((a, b) => b.size - a.size);
  $('charts').replaceChildren(barChart('Bytes by chunk type (light: raw, dark: stored)', sortDesc(byType)), barChart('Bytes by container', sortDesc(byCont)));
}

// ---------- containers panel ----------

function renderContainers(): void {
  const loaded = state.loaded!;
  const list = loaded.containers.map((c, k) => {
    const lines: string[] = [];
    if (c.toc) {
      const info = containerInfo(c.toc);
      lines.push(`IoStore ${info.versionName} (${info.engineVersions}), ${fmtInt(info.chunkCount)} chunks, ${fmtInt(info.blockCount)} blocks`);
      lines.push(`compression: ${info.compressionMethods.slice(1).join(', ') || 'none'}; encryption: ${info.encryption}; partitions: ${info.partitionCount}`);
      if (info.mountPoint) lines.push(`mount point: ${info.mountPoint}`);
      lines.push(`raw ${fmtBytes(info.rawSize)}, stored ${fmtBytes(info.storedSize)}`);
    } else if (c.pak) {
      lines.push(`pak ${c.pak.versionName}, ${fmtInt(c.pak.entries.length)} entries, mount point ${c.pak.mountPoint}`);
      lines.push(`compression: ${c.pak.compressionMethods.join(', ') || 'none'}; encrypted index: ${c.pak.encryptedIndex ? 'yes' : 'no'}`);
    }
    const card = h('div', { class: 'card' }, h('b', {}, c.name), h('small', {}, ` priority ${c.priority}`), ...lines.map((l) => h('div', {}, l)), ...c.problems.map((p) => h('div', { class: 'warn' }, p)));
    if (c.toc && c.toc.chunkTypeName !== undefined && c.reader && [...Array(c.toc.chunkCount).keys()].some((i) => c.toc!.chunkTypeName(i) === 'ContainerHeader')) {
      const b = h('button', { 'data-action': 'header', 'data-container': String(k) }, 'Container header');
      b.addEventListener('click', () => void showHeader(k));
      card.append(b);
    }
    return card;
  });
  $('containers').replaceChildren(...list);
}

// ---------- details: package, container header, hex, text ----------

function showTab(name: 'details' | 'containers'): void {
  for (const b of document.querySelectorAll<HTMLElement>('#tabs button')) b.classList.toggle('on', b.dataset.tab === name);
  $('details').hidden = name !== 'details';
  $('containers').hidden = name !== 'containers';
}

function detail(...nodes: Array<Node | string>): void {
  showTab('details');
  $('details').replaceChildren(...nodes);
}

/** A table; the columns in `numeric` keep their figures on one line, right-aligned. */
function table(head: string[], rows: Array<Array<string | Node>>, cls = '', numeric: readonly number[] = []): HTMLElement {
  const at = (k: number): Record<string, string> => (numeric.includes(k) ? { class: 'num' } : {});
  return h('table', { class: cls ? `kv ${cls}` : 'kv' }, h('thead', {}, h('tr', {}, ...head.map((x, k) => h('th', at(k), x)))), h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((x, k) => h('td', at(k), x))))));
}

/** An object path that wraps after its separators (`/`, `.`, `:`) rather than mid-name, with its class below it. */
function objectCell(path: string, cls: string): Node {
  const wrapping = (text: string, c: string) => {
    const el = h('span', { class: c });
    for (const piece of text.split(/(?<=[/.:])/)) el.append(piece, h('wbr'));
    return el;
  };
  return h('div', {}, wrapping(path, 'path'), ...(cls ? [h('div', {}, wrapping(cls, 'cls'))] : []));
}

function packageNodes(v: AnyPackageView): Node[] {
  if (isLegacyView(v)) return legacyNodes(v);
  return [
    h('h3', { class: 'pkg-name' }, v.packageName),
    h('div', {}, `${v.format} zen package, header ${fmtInt(v.headerSize)} bytes, export data ${fmtInt(v.exportDataSize)} bytes, flags ${v.packageFlags}`),
    h('h4', {}, `Exports (${v.exports.length})`),
    table(['#', 'name', 'class', 'outer', 'size'], v.exports.map((e) => [String(e.index), e.name, e.class ?? '', e.outer ?? '', fmtInt(e.serialSize)])),
    h('h4', {}, `Imports (${v.imports.length})`),
    table(['#', 'kind', 'resolved'], v.imports.map((i) => [String(i.index), i.kind, i.resolved ?? i.value])),
    h('h4', {}, `Imported packages (${v.importedPackages.length})`),
    ...(v.importedPackages.length ? [table(['#', 'package'], v.importedPackages.map((p, i) => [String(i), p]))] : []),
    h('h4', {}, `Names (${v.nameCount})`),
    h('pre', { class: 'names' }, v.names.join('\n')),
  ];
}

function legacyNodes(v: LegacyPackageView): Node[] {
  const ver = v.versioning;
  const inline = v.exportData.in === 'uasset' ? `none needed: the export data is in the .uasset, ${fmtInt(v.exportData.size)} bytes after the header${v.exportData.ok ? ', every export inside it' : `: ${v.exportData.error}`}` : undefined;
  const uexp = inline ?? (v.uexp ? (v.uexp.ok ? `${fmtInt(v.uexp.size)} bytes, every export inside it` : `${fmtInt(v.uexp.size)} bytes: ${v.uexp.error}`) : 'not found beside the package: drop it with the .uasset');
  return [
    h('h3', { class: 'pkg-name' }, v.packageName),
    table(['', ''], [
      ['format', `legacy package (legacy file version ${v.legacyFileVersion}), header ${fmtInt(v.totalHeaderSize)} bytes`],
      ['versions', `${ver.unversioned ? 'unversioned, read as ' : ''}UE4 ${ver.fileVersionUE4}, UE5 ${ver.fileVersionUE5}, licensee ${ver.licensee}, ${ver.customVersions} custom versions`],
      ['package flags', v.packageFlags],
      ['preload deps', fmtInt(v.preloadDependencies)],
      ['data resources', fmtInt(v.dataResources)],
      ['.uexp', uexp],
    ], 'summary'),
    h('h4', {}, `Exports (${v.exports.length})`),
    table(['#', 'object / class', 'size', 'offset', 'flags'], v.exports.map((e) => [String(e.index), objectCell(e.path, e.class), fmtInt(e.serialSize), fmtInt(e.serialOffset), e.objectFlags.replace(/^0x0*(?=.)/, '0x')]), 'exports', [2, 3, 4]),
    h('h4', {}, `Imports (${v.imports.length})`),
    table(['#', 'object / class'], v.imports.map((i) => [String(i.index), objectCell(i.path, `${i.classPackage}.${i.class}`)]), 'imports'),
    h('h4', {}, `Names (${v.nameCount})`),
    h('pre', { class: 'names' }, v.names.join('\n')),
  ];
}

function headerNodes(v: ContainerHeaderView): Node[] {
  return [
    h('h3', {}, `Container header (${v.version})`),
    h('div', {}, `container id ${v.containerId}, ${fmtInt(v.packageCount)} packages, ${v.optionalSegmentPackages} optional, ${v.localizedPackages} localized, ${v.packageRedirects} redirects, ${v.softPackageReferences} soft references`),
    table(['package id', 'name', 'imports', 'exports'], v.packages.map((p) => [p.id, p.name ?? '', String(p.importedPackages.length), p.exportCount === undefined ? '' : String(p.exportCount)])),
  ];
}

async function showHeader(k: number): Promise<void> {
  try {
    const v = await state.ctx!.containerHeaderView(k);
    detail(...(v ? headerNodes(v) : [h('div', {}, 'no container header chunk')]));
  } catch (e) {
    setError([oneLine(e)]);
  }
}

function hexDump(bytes: Uint8Array, base: number): string {
  const lines: string[] = [];
  for (let o = 0; o < bytes.length; o += 16) {
    const slice = bytes.subarray(o, o + 16);
    const hex = Array.from(slice, (b) => b.toString(16).padStart(2, '0')).join(' ');
    const asc = Array.from(slice, (b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${(base + o).toString(16).padStart(8, '0')}  ${hex.padEnd(48)}  ${asc}`);
  }
  return lines.join('\n');
}

function decodeText(b: Uint8Array): string {
  if (b[0] === 0xff && b[1] === 0xfe) return new TextDecoder('utf-16le').decode(b.subarray(2));
  if (b[0] === 0xfe && b[1] === 0xff) return new TextDecoder('utf-16be').decode(b.subarray(2));
  return new TextDecoder('utf-8').decode(b);
}

async function selectRow(idx: number): Promise<void> {
  state.selected = idx;
  renderRows(true);
  const loaded = state.loaded!;
  const r = loaded.rows[idx]!;
  const c = loaded.containers[r.container]!;
  const info = table(['', ''], [
    ['path', r.path],
    ['type', r.type],
    ['size', `${fmtInt(r.size)} bytes`],
    ['stored', `${fmtInt(r.stored)} bytes (${r.compression})`],
    ['container', `${c.name}${r.overridden ? ' (overridden by a higher-priority container)' : ''}`],
    ...(c.toc ? [['chunk id', c.toc.chunkIdHex(r.index)], ['hash', c.toc.chunkHashHex(r.index)]] : []),
  ]);
  const buttons = h('div', { class: 'buttons' });
  const body = h('div', { id: 'view' });
  const add = (label: string, action: string, fn: () => Promise<void>) => {
    const b = h('button', { 'data-action': action }, label);
    b.addEventListener('click', () => void fn().catch((e) => setError([oneLine(e)])));
    buttons.append(b);
  };
  const why = unreadable(c);
  const isPackage = r.type === 'ExportBundleData' || /\.(uasset|umap)$/i.test(r.path);
  if (!why) {
    if (isPackage) add('Package', 'package', () => showPackage(r, body));
    if (TEXT_EXT.test(r.path)) add('Text', 'text', () => showText(r, body));
    add('Hex', 'hex', () => showHex(r, body, 0));
    add('Download', 'download', () => downloadRow(r));
    if (c.reader) add('Check hash', 'verify', () => showVerify(c, r, buttons));
  }
  detail(info, buttons, why ? h('div', { class: 'warn' }, why) : body);
  if (why) return;
  try {
    if (isPackage) await showPackage(r, body);
    else if (TEXT_EXT.test(r.path)) await showText(r, body);
    else await showHex(r, body, 0);
  } catch (e) {
    body.replaceChildren(h('div', { class: 'warn' }, oneLine(e)));
  }
}

async function showVerify(c: Parameters<typeof verifyChunk>[0], r: Row, where: HTMLElement): Promise<void> {
  where.querySelector('.verdict')?.remove();
  const v = await verifyChunk(c, r.index);
  const name = v.algorithm === 'blake3' ? 'BLAKE3-160' : 'SHA-1';
  where.append(h('span', { class: `verdict ${v.ok ? 'ok' : 'bad'}`, title: `computed ${v.actual}, chunk meta ${v.expected}` }, v.ok ? `✔ ${name} matches` : `✘ ${name} differs from the chunk meta`));
}

async function showPackage(r: Row, body: HTMLElement): Promise<void> {
  const rows = state.loaded!.rows;
  const companion = async (ext: string) => {
    const want = r.path.replace(/\.[^./]+$/, ext);
    const other = rows.find((x) => x.path === want && !x.overridden);
    return other ? readRow(state.loaded!.containers, other, state.key) : undefined;
  };
  const v = await state.ctx!.packageView(r, state.key, companion);
  body.replaceChildren(...(typeof v === 'string' ? [h('div', { class: 'warn' }, v)] : packageNodes(v)));
}

async function showText(r: Row, body: HTMLElement): Promise<void> {
  const bytes = await readRow(state.loaded!.containers, r, state.key, 4 << 20);
  body.replaceChildren(h('pre', { class: 'text' }, decodeText(bytes)), ...(r.size > bytes.length ? [h('div', {}, `first ${fmtBytes(bytes.length)} shown`)] : []));
}

async function showHex(r: Row, body: HTMLElement, from: number): Promise<void> {
  const c = state.loaded!.containers[r.container]!;
  const len = Math.min(HEX_PAGE, r.size - from);
  const bytes = c.reader ? await c.reader.readRange(r.index, from, len) : (await readRow(state.loaded!.containers, r, state.key, from + len)).subarray(from);
  const pre = h('pre', { class: 'hex' }, hexDump(bytes, from));
  const nav = h('div', { class: 'buttons' });
  if (from > 0) {
    const b = h('button', {}, '◀ previous 64 KiB');
    b.addEventListener('click', () => void showHex(r, body, Math.max(0, from - HEX_PAGE)));
    nav.append(b);
  }
  if (from + len < r.size) {
    const b = h('button', {}, 'next 64 KiB ▶');
    b.addEventListener('click', () => void showHex(r, body, from + HEX_PAGE));
    nav.append(b);
  }
  nav.append(h('span', {}, ` bytes ${fmtInt(from)}–${fmtInt(from + len)} of ${fmtInt(r.size)}`));
  body.replaceChildren(nav, pre);
}

/** With several loose packages dropped (and no container to list them in), one button per package. */
function looseChooser(current: InputFile): Node[] {
  const all = state.loaded?.looseFiles ?? [];
  if (all.length < 2) return [];
  const nav = h('nav', { class: 'loose' });
  for (const f of all) {
    const b = h('button', f === current ? { class: 'current', 'aria-current': 'true' } : {}, f.path);
    b.addEventListener('click', () => void showLoose(f));
    nav.append(b);
  }
  return [nav];
}

async function showLoose(f: InputFile): Promise<void> {
  try {
    const bytes = new Uint8Array(await f.file.arrayBuffer());
    // A legacy package's .uexp (and .ubulk) dropped beside it are its companions.
    const companion = async (ext: string) => {
      const want = f.path.replace(/\.[^./]+$/, ext).toLowerCase();
      const other = state.files.find((x) => x.path.toLowerCase() === want);
      return other ? new Uint8Array(await other.file.arrayBuffer()) : undefined;
    };
    const v = await viewLoosePackage(bytes, f.path, companion);
    detail(...looseChooser(f), ...(typeof v === 'string' ? [h('div', { class: 'warn' }, v)] : packageNodes(v)));
  } catch (e) {
    setError([oneLine(e)]);
  }
}

// ---------- extraction ----------

function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

async function downloadRow(r: Row): Promise<void> {
  const parts: Uint8Array[] = [];
  for await (const p of rowPieces(state.loaded!.containers, r, state.key)) parts.push(p);
  saveBlob(new Blob(parts as BlobPart[]), r.path.split('/').pop()!);
}

async function extract(which: 'shown' | 'all'): Promise<void> {
  if (state.busy || !state.loaded) return;
  const loaded = state.loaded;
  const rows = which === 'all' ? loaded.rows.filter((r) => !r.overridden) : Array.from(state.view, (i) => loaded.rows[i]!);
  const readable = rows.filter((r) => !unreadable(loaded.containers[r.container]!));
  const skipped = rows.length - readable.length;
  if (readable.length === 0) {
    setError([`nothing to extract: ${skipped} row(s) live in containers whose data is missing or locked`]);
    return;
  }
  const name = which === 'all' ? 'iostore-all.zip' : `iostore-${(state.folder || 'selection').replace(/\/$/, '').split('/').pop()}.zip`;
  // Where the browser can write straight to a file, the archive never sits in memory at all.
  let sink: ZipSink = blobSink();
  const picker = (window as unknown as { showSaveFilePicker?: (o: unknown) => Promise<{ createWritable(): Promise<{ write(d: Uint8Array): Promise<void>; close(): Promise<void> }> }> }).showSaveFilePicker;
  if (picker && $<HTMLInputElement>('to-disk').checked) {
    try {
      sink = writableSink(await (await picker({ suggestedName: name })).createWritable());
    } catch {
      return;
    }
  }
  const total = readable.reduce((a, r) => a + r.size, 0);
  state.busy = true;
  state.cancel = false;
  const entries: ZipEntrySource[] = readable.map((r) => ({ path: r.path, pieces: () => rowPieces(loaded.containers, r, state.key) }));
  try {
    const t0 = performance.now();
    const { archive, failures } = await zipEntries(entries, sink, (p) => setProgress(p.bytes, total, `Extracting ${fmtInt(p.files)}/${fmtInt(p.filesTotal)} files, ${fmtBytes(p.bytes)} of ${fmtBytes(total)}`), () => state.cancel);
    if (archive) saveBlob(archive, name);
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    setStatus(`${state.cancel ? 'Stopped: ' : ''}${name}: ${fmtInt(readable.length - failures.length)} files, ${fmtBytes(total)} in ${secs} s${skipped ? `; ${skipped} skipped (no data)` : ''}`);
    document.body.dataset.extracted = String(readable.length - failures.length);
    setError(failures);
  } catch (e) {
    setError([oneLine(e)]);
  } finally {
    state.busy = false;
    setProgress(0, 0, '');
  }
}

// ---------- wiring ----------

function wire(): void {
  const drop = document.body;
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    document.body.classList.add('dragging');
  });
  drop.addEventListener('dragleave', (e) => {
    if (e.relatedTarget === null) document.body.classList.remove('dragging');
  });
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dragging');
    perf.dropAt = performance.now();
    void filesFromDrop(e.dataTransfer!).then(open).catch((err) => setError([oneLine(err)]));
  });
  for (const id of ['pick-folder', 'pick-files']) {
    $<HTMLInputElement>(id).addEventListener('change', (e) => {
      const input = e.target as HTMLInputElement;
      void open(filesFromInput(input.files)).catch((err) => setError([oneLine(err)]));
      input.value = '';
    });
  }
  $('key').addEventListener('change', () => {
    if (state.files.length) void reload().catch((err) => setError([oneLine(err)]));
  });
  let timer = 0;
  $('filter').addEventListener('input', (e) => {
    clearTimeout(timer);
    timer = window.setTimeout(() => {
      state.filter = (e.target as HTMLInputElement).value;
      $('scroller').scrollTop = 0;
      applyView();
    }, 120);
  });
  $('overridden').addEventListener('change', (e) => {
    state.showOverridden = (e.target as HTMLInputElement).checked;
    applyView();
  });
  $('thead').addEventListener('click', (e) => {
    const key = (e.target as HTMLElement).closest<HTMLElement>('[data-key]')?.dataset.key as SortKey | undefined;
    if (!key) return;
    state.sort = state.sort.key === key ? { key, dir: state.sort.dir === 1 ? -1 : 1 } : { key, dir: key === 'size' || key === 'stored' ? -1 : 1 };
    applyView();
  });
  $('scroller').addEventListener('scroll', () => requestAnimationFrame(() => renderRows()));
  window.addEventListener('resize', () => renderRows(true));
  $('window').addEventListener('click', (e) => {
    const tr = (e.target as HTMLElement).closest<HTMLElement>('[data-row]');
    if (tr) void selectRow(Number(tr.dataset.row));
  });
  // Up/Down move the selection through the table, PageUp/PageDown by a screen, Home/End to the ends.
  $('scroller').addEventListener('keydown', (e) => {
    const steps: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: 20, PageUp: -20, Home: -Infinity, End: Infinity };
    const step = steps[e.key];
    if (step === undefined || state.view.length === 0) return;
    e.preventDefault();
    const at = state.view.indexOf(state.selected);
    const next = Math.max(0, Math.min(state.view.length - 1, at < 0 ? 0 : at + step));
    const sc = $('scroller');
    if (next * ROW_H < sc.scrollTop) sc.scrollTop = next * ROW_H;
    else if ((next + 1) * ROW_H > sc.scrollTop + sc.clientHeight) sc.scrollTop = (next + 1) * ROW_H - sc.clientHeight;
    void selectRow(state.view[next]!);
  });
  $('extract-shown').addEventListener('click', () => void extract('shown'));
  $('extract-all').addEventListener('click', () => void extract('all'));
  $('cancel').addEventListener('click', () => {
    state.cancel = true;
  });
  $('tabs').addEventListener('click', (e) => {
    const tab = (e.target as HTMLElement).dataset.tab as 'details' | 'containers' | undefined;
    if (tab) showTab(tab);
  });
  if (!('showSaveFilePicker' in window)) $('to-disk-label').hidden = true;
}

wire();
