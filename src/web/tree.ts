/**
 * The tree of mounted folders, an ARIA tree: one node in the Tab order, Up/Down through the open nodes, Right opens
 * (then enters), Left closes (then goes up), Home/End; moving selects the folder, which narrows the table. The
 * nodes in view are drawn as one flat list (level, position and size tell the structure), so each node's name is
 * its own label and nothing of its children.
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
  open: boolean;
  parent?: Dir;
  /** Its sub-folders by name, made when first needed. */
  sorted?: Dir[];
}

let root: Dir | undefined;
/** The folder whose node holds the Tab stop. */
let focusDir: Dir | undefined;

function buildTree(rows: readonly Row[]): Dir {
  const top: Dir = { name: 'All', path: '', dirs: new Map(), files: 0, bytes: 0, open: false };
  for (const r of rows) {
    if (r.overridden) continue;
    let d = top;
    d.files++;
    d.bytes += r.size;
    const parts = r.path.split('/');
    for (let i = 0; i < parts.length - 1; i++) {
      let next = d.dirs.get(parts[i]!);
      if (!next) d.dirs.set(parts[i]!, (next = { name: parts[i]!, path: `${d.path}${parts[i]}/`, dirs: new Map(), files: 0, bytes: 0, open: false, parent: d }));
      d = next;
      d.files++;
      d.bytes += r.size;
    }
  }
  return top;
}

const children = (d: Dir) => (d.sorted ??= [...d.dirs.values()].sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1)));

/** The folders a reader sees, top to bottom, with their level (those inside closed folders left out). */
function visible(): Array<{ d: Dir; level: number; pos: number; size: number }> {
  const out: Array<{ d: Dir; level: number; pos: number; size: number }> = [];
  const walk = (d: Dir, level: number, pos: number, size: number) => {
    out.push({ d, level, pos, size });
    if (d.open) children(d).forEach((c, i, all) => walk(c, level + 1, i + 1, all.length));
  };
  if (root) walk(root, 1, 1, 1);
  return out;
}

const nodes = new WeakMap<HTMLElement, Dir>();

function draw(focus = false): void {
  const list = visible();
  const items = list.map(({ d, level, pos, size }) => {
    const selected = state.folder === d.path;
    const node = h('div', { class: 'node', role: 'treeitem', 'aria-level': String(level), 'aria-setsize': String(size), 'aria-posinset': String(pos), 'aria-selected': String(selected), tabindex: d === focusDir ? '0' : '-1', 'data-folder': d.path, style: `padding-left: ${6 + (level - 1) * 14}px`, title: `${d.path || '/'}: ${fmtInt(d.files)} files, ${fmtBytes(d.bytes)}` },
      h('span', { class: 'tog', 'aria-hidden': 'true' }, d.dirs.size ? (d.open ? '▾' : '▸') : '·'),
      h('span', { class: 'lbl' }, d.name, h('small', {}, ` ${fmtInt(d.files)}`)),
    );
    if (d.dirs.size) node.setAttribute('aria-expanded', String(d.open));
    nodes.set(node, d);
    return node;
  });
  $('tree').replaceChildren(...items);
  if (focus) $('tree').querySelector<HTMLElement>('[tabindex="0"]')?.focus();
}

function setOpen(d: Dir, open: boolean): void {
  if (!d.dirs.size || d.open === open) return;
  d.open = open;
  // Closing a folder that holds the Tab stop moves it to the folder.
  for (let f = focusDir; f; f = f.parent) if (f.parent === d && !open) focusDir = d;
}

/** Makes `d` the tree's Tab stop and its selected folder. */
function choose(d: Dir): void {
  focusDir = d;
  if (d.path !== state.folder) {
    state.folder = d.path;
    showFolder(d.path);
    $('scroller').scrollTop = 0;
    applyView();
  }
  draw(true);
}

export function renderTree(): void {
  root = buildTree(state.loaded?.rows ?? []);
  focusDir = root;
  // Open the first levels the way a Paks folder reads: each top folder, then down any single-child chain
  // (Game/Content/...), so the first screen shows where the files are.
  const openChain = (d: Dir) => {
    while (d.dirs.size === 1) {
      d = children(d)[0]!;
      setOpen(d, true);
    }
  };
  setOpen(root, true);
  if (root.dirs.size <= 4) {
    for (const d of children(root)) {
      setOpen(d, true);
      openChain(d);
    }
  } else openChain(root);
  draw();
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
    const d = node && nodes.get(node);
    if (!d) return;
    if (target.closest('.tog')) {
      setOpen(d, !d.open);
      focusDir = d;
      draw(true);
    } else choose(d);
  });
  tree.addEventListener('keydown', (e) => {
    const node = (e.target as HTMLElement).closest<HTMLElement>('[role="treeitem"]');
    const d = node && nodes.get(node);
    if (!d) return;
    const all = visible().map((v) => v.d);
    const at = all.indexOf(d);
    let to: Dir | undefined;
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
        if (d.dirs.size && !d.open) {
          setOpen(d, true);
          draw(true);
        } else if (d.dirs.size) to = children(d)[0];
        break;
      case 'ArrowLeft':
        if (d.dirs.size && d.open) {
          setOpen(d, false);
          draw(true);
        } else to = d.parent;
        break;
      case 'Enter':
      case ' ':
        setOpen(d, !d.open);
        draw(true);
        break;
      default:
        return;
    }
    e.preventDefault();
    if (to) choose(to);
  });
}
