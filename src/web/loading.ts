/**
 * Opening files: drop, folder picker, files picker, AES key. Each open starts a new set: the table, tree, charts,
 * containers and details of the previous one are cleared first, whether the new one loads or fails.
 */
import { parseAesKey } from '../crypto/aes.js';
import { $, fmtInt, h } from './dom.js';
import { renderCharts } from './charts.js';
import { renderContainers } from './containers.js';
import { clearDetails, showSubject } from './details.js';
import { updateExtractButtons } from './extraction.js';
import { PackageContext } from './package-view.js';
import { currentMappings, mappingsFromOpened } from './mappings.js';
import { loadFiles, oneLine, type InputFile } from './session.js';
import { perf, state } from './state.js';
import { setError, setStatus } from './status.js';
import { looseSubject } from './subject.js';
import { applyView } from './table.js';
import { renderTree } from './tree.js';

const OPENED = /\.(utoc|ucas|pak|uasset|umap|uzenasset|uexp|ubulk|locres)$/i;
const USMAP = /\.usmap$/i;

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

/** Forgets the shown set: every pane empties, and work still running for it finds its generation gone. */
function startNewSet(): void {
  state.generation++;
  state.loaded = undefined;
  state.ctx = undefined;
  state.view = new Int32Array(0);
  state.selected = -1;
  state.folder = '';
  state.filter = '';
  $<HTMLInputElement>('filter').value = '';
  clearDetails();
  setError([]);
}

/** Back to the drop hint (nothing usable was opened), with the reasons in the error strip. */
function showEmpty(errors: string[]): void {
  $('empty').hidden = false;
  $('workspace').hidden = true;
  $('tree').replaceChildren();
  $('window').replaceChildren();
  $('containers').replaceChildren();
  renderCharts();
  updateExtractButtons();
  setError(errors);
  markReady();
}

function markReady(): void {
  requestAnimationFrame(() => {
    perf.tableMs = performance.now() - perf.dropAt;
    document.body.dataset.tableMs = perf.tableMs.toFixed(0);
    document.body.dataset.ready = '1';
  });
}

export async function open(files: InputFile[]): Promise<void> {
  perf.dropAt = performance.now();
  perf.tableMs = -1;
  // A .usmap opened alone sets the page's mappings and leaves the shown set as it is.
  if (files.length > 0 && files.every((f) => USMAP.test(f.path))) {
    await mappingsFromOpened(files);
    setStatus(`Mappings: ${currentMappings()?.name ?? 'none'}`);
    return;
  }
  await mappingsFromOpened(files);
  startNewSet();
  state.files = files.filter((f) => OPENED.test(f.path));
  if (state.files.length === 0) {
    setStatus('Nothing opened.');
    showEmpty([files.length ? `none of the ${files.length} file(s) is a .utoc, .ucas, .pak, .uasset, .uzenasset or .locres` : 'nothing was dropped']);
    return;
  }
  await load();
}

/** Reads the files of the set again (a new AES key). */
export async function reload(): Promise<void> {
  if (state.files.length === 0) return;
  perf.dropAt = performance.now();
  startNewSet();
  await load();
}

async function load(): Promise<void> {
  const generation = state.generation;
  const key = keyFromField();
  if (key === 'bad') {
    showEmpty(['AES key: expected 64 hex digits (optionally 0x-prefixed) or base64 of 32 bytes']);
    return;
  }
  state.key = key;
  setStatus(`Reading ${fmtInt(state.files.length)} file(s)…`);
  const loaded = await loadFiles(state.files, key, (s) => generation === state.generation && setStatus(s));
  if (generation !== state.generation) return; // another open started meanwhile
  const problems = [...loaded.errors, ...loaded.containers.flatMap((c) => c.problems)];
  $('key').classList.toggle('need', problems.some((p) => /AES key/.test(p)));
  if (loaded.containers.length === 0 && loaded.looseFiles.length === 0) {
    setStatus(`Nothing could be opened from ${fmtInt(state.files.length)} file(s).`);
    showEmpty(problems.length ? problems : ['none of the files could be opened']);
    return;
  }
  state.loaded = loaded;
  state.ctx = new PackageContext(loaded.containers);
  $('empty').hidden = true;
  $('workspace').hidden = false;
  document.body.classList.toggle('loose-only', loaded.containers.length === 0);
  setError(problems);
  applyView();
  renderTree();
  // Drawn to the width the layout gives them, once there is one (measuring now would force a layout).
  requestAnimationFrame(() => generation === state.generation && renderCharts());
  renderContainers();
  updateExtractButtons();
  const looseOnly = loaded.containers.length === 0;
  const loose = loaded.looseFiles.length;
  setStatus(looseOnly ? `${loose} loose file(s)` : `${fmtInt(loaded.containers.length)} container(s), ${fmtInt(loaded.rows.length)} rows${loose ? `, ${loose} loose file(s) in Details` : ''}`);
  markReady();
  if (looseOnly) {
    // No container, so no rows: say where the files went rather than show a bare "0 of 0 rows".
    $('count').textContent = 'no container: see Details';
    await showLoose(loaded.looseFiles[0]!);
  } else if (loose) {
    // Files dropped beside containers: the details pane lists them until a row is picked.
    clearDetails();
    $('details').prepend(looseChooser(undefined));
  }
}

/** One button per loose file (the current one marked), so each is reachable whatever the others do. */
function looseChooser(current: InputFile | undefined): HTMLElement {
  const nav = h('nav', { class: 'loose', 'aria-label': 'Loose files' });
  for (const other of state.loaded!.looseFiles) {
    const b = h('button', other === current ? { type: 'button', class: 'current', 'aria-current': 'true' } : { type: 'button' }, other.path);
    b.addEventListener('click', () => void showLoose(other).then(() => document.querySelector<HTMLElement>('#details nav.loose button.current')?.focus()));
    nav.append(b);
  }
  return nav;
}

/** A loose file in the details pane, under a chooser of all of them (so one that fails leaves the others reachable). */
async function showLoose(f: InputFile): Promise<void> {
  const lead = state.loaded!.looseFiles.length > 1 || state.loaded!.containers.length > 0 ? [looseChooser(f)] : [];
  await showSubject(looseSubject(state.files, f, state.ctx, state.generation), lead);
}

export function wireLoading(): void {
  const body = document.body;
  body.addEventListener('dragover', (e) => {
    e.preventDefault();
    body.classList.add('dragging');
  });
  body.addEventListener('dragleave', (e) => {
    if (e.relatedTarget === null) body.classList.remove('dragging');
  });
  body.addEventListener('drop', (e) => {
    e.preventDefault();
    body.classList.remove('dragging');
    perf.dropAt = performance.now();
    void filesFromDrop(e.dataTransfer!).then(open).catch((err) => setError([oneLine(err)]));
  });
  // The pickers are buttons (reachable by keyboard) that open the hidden file inputs.
  for (const [button, input] of [['open-folder', 'pick-folder'], ['open-files', 'pick-files']] as const) {
    $(button).addEventListener('click', () => $<HTMLInputElement>(input).click());
    $<HTMLInputElement>(input).addEventListener('change', (e) => {
      const el = e.target as HTMLInputElement;
      void open(filesFromInput(el.files)).catch((err) => setError([oneLine(err)]));
      el.value = '';
    });
  }
  $('key').addEventListener('change', () => void reload().catch((err) => setError([oneLine(err)])));
}
