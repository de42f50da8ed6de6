/**
 * The tree of mounted folders, an ARIA tree: one node in the Tab order, Up/Down through the open nodes, Right opens
 * (then enters), Left closes (then goes up), Home/End; moving selects the folder, which narrows the table.
 */
import { $, fmtBytes, fmtInt, h } from './dom.js';
import { state } from './state.js';
import type { Row } from './session.js';
import { applyView } from './table.js';

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

const sortedDirs = (d: Dir) => [...d.dirs.values()].sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1));

/** Tree nodes keep their folder; children are made when a node is first opened. */
const dirOf = new WeakMap<HTMLElement, Dir>();
let labelIds = 0;

function treeNode(d: Dir, level: number): HTMLElement {
  const id = `tree-label-${labelIds++}`;
  const node = h('div', { class: 'node', role: 'treeitem', 'aria-level': String(level), 'aria-selected': String(state.folder === d.path), 'aria-labelledby': id, tabindex: '-1', 'data-folder': d.path });
  const toggle = h('span', { class: 'tog', 'aria-hidden': 'true' }, d.dirs.size ? '▸' : '·');
  const label = h('span', { class: 'lbl', id, title: `${d.path || '/'}: ${fmtInt(d.files)} files, ${fmtBytes(d.bytes)}` }, d.name, h('small', {}, ` ${fmtInt(d.files)}`));
  node.append(h('div', { class: 'line' }, toggle, label));
  if (d.dirs.size) {
    node.setAttribute('aria-expanded', 'false');
    node.append(h('div', { class: 'kids', role: 'group' }));
  }
  dirOf.set(node, d);
  return node;
}

function setOpen(node: HTMLElement, open: boolean): void {
  const d = dirOf.get(node);
  const kids = node.querySelector<HTMLElement>(':scope > .kids');
  if (!d || !kids) return;
  if (open && kids.childElementCount === 0) {
    const level = Number(node.getAttribute('aria-level')) + 1;
    kids.replaceChildren(...sortedDirs(d).map((c) => treeNode(c, level)));
  }
  kids.hidden = !open;
  node.setAttribute('aria-expanded', String(open));
  node.querySelector(':scope > .line > .tog')!.textContent = open ? '▾' : '▸';
}

const isOpen = (node: HTMLElement) => node.getAttribute('aria-expanded') === 'true';

/** The nodes a reader sees, top to bottom (those inside closed nodes left out). */
function visibleNodes(): HTMLElement[] {
  const out: HTMLElement[] = [];
  const walk = (n: HTMLElement) => {
    out.push(n);
    if (isOpen(n)) for (const c of n.querySelector(':scope > .kids')!.children) walk(c as HTMLElement);
  };
  const root = $('tree').firstElementChild as HTMLElement | null;
  if (root) walk(root);
  return out;
}

/** Makes `node` the tree's one Tab stop and its selected folder. */
function choose(node: HTMLElement, focus: boolean): void {
  for (const n of $('tree').querySelectorAll<HTMLElement>('[role="treeitem"]')) {
    n.tabIndex = n === node ? 0 : -1;
    n.setAttribute('aria-selected', String(n === node));
  }
  if (focus) node.focus();
  const folder = node.dataset.folder!;
  if (folder === state.folder) return;
  state.folder = folder;
  showFolder(folder);
  $('scroller').scrollTop = 0;
  applyView();
}

export function renderTree(): void {
  labelIds = 0;
  const root = buildTree(state.loaded?.rows ?? []);
  const el = treeNode(root, 1);
  el.tabIndex = 0;
  $('tree').replaceChildren(el);
  // Open the first levels the way a Paks folder reads: each top folder, then down any single-child chain
  // (Game/Content/...), so the first screen shows where the files are.
  const openChain = (node: HTMLElement) => {
    while (dirOf.get(node)!.dirs.size === 1) {
      node = node.querySelector<HTMLElement>(':scope > .kids > .node')!;
      setOpen(node, true);
    }
  };
  setOpen(el, true);
  if (root.dirs.size <= 4) {
    for (const node of el.querySelectorAll<HTMLElement>(':scope > .kids > .node')) {
      if (dirOf.get(node)!.dirs.size === 0) continue;
      setOpen(node, true);
      openChain(node);
    }
  } else openChain(el);
  showFolder('');
}

/** The toolbar names the folder the table is narrowed to (nothing when it shows all). */
function showFolder(folder: string): void {
  $('folder').textContent = folder;
  $('in-folder').hidden = !folder;
}

export function wireTree(): void {
  const tree = $('tree');
  tree.addEventListener('click', (e) => {
    const target = e.target as HTMLElement;
    const node = target.closest<HTMLElement>('[role="treeitem"]');
    if (!node) return;
    if (target.closest('.tog')) setOpen(node, !isOpen(node));
    else choose(node, true);
  });
  tree.addEventListener('keydown', (e) => {
    const node = (e.target as HTMLElement).closest<HTMLElement>('[role="treeitem"]');
    if (!node) return;
    const all = visibleNodes();
    const at = all.indexOf(node);
    const expandable = node.hasAttribute('aria-expanded');
    let to: HTMLElement | undefined;
    switch (e.key) {
      case 'ArrowDown':
        to = all[at + 1];
        break;
      case 'ArrowUp':
        to = all[at - 1];
        break;
      case 'Home':
        to = all[0];
        break;
      case 'End':
        to = all[all.length - 1];
        break;
      case 'ArrowRight':
        if (expandable && !isOpen(node)) setOpen(node, true);
        else if (expandable) to = node.querySelector<HTMLElement>(':scope > .kids > .node') ?? undefined;
        break;
      case 'ArrowLeft':
        if (expandable && isOpen(node)) setOpen(node, false);
        else to = node.parentElement?.closest<HTMLElement>('[role="treeitem"]') ?? undefined;
        break;
      case 'Enter':
      case ' ':
        if (expandable) setOpen(node, !isOpen(node));
        break;
      default:
        return;
    }
    e.preventDefault();
    if (to) choose(to, true);
  });
}
