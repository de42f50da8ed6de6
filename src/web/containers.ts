/** The Containers tab: one card per dropped container, and each IoStore container's header (its packages). */
import { containerHeaderVersionLabel, type ContainerHeaderView } from '../inspect/describe.js';
import { containerInfo } from '../toc/listing.js';
import { $, fmtBytes, fmtInt, h, table, wrappingText } from './dom.js';
import { detail } from './details.js';
import { oneLine } from './session.js';
import { state } from './state.js';
import { setError } from './status.js';

/** Packages listed at once in a header view; the filter reaches the others. */
const HEADER_ROWS = 500;

export function renderContainers(): void {
  const loaded = state.loaded;
  if (!loaded) {
    $('containers').replaceChildren();
    return;
  }
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
    const card = h('section', { class: 'card', 'aria-label': c.label },
      h('h3', {}, wrappingText(c.label)),
      h('div', { class: 'muted' }, wrappingText(c.path), ` · priority ${c.priority}`),
      ...lines.map((l) => h('div', {}, l)),
      ...c.problems.map((p) => h('div', { class: 'warn' }, p)),
    );
    const toc = c.toc;
    if (toc && c.reader && [...Array(toc.chunkCount).keys()].some((i) => toc.chunkTypeName(i) === 'ContainerHeader')) {
      const b = h('button', { type: 'button', 'data-action': 'header', 'data-container': String(k) }, 'Container header');
      b.addEventListener('click', () => void showHeader(k));
      card.append(b);
    }
    return card;
  });
  $('containers').replaceChildren(...list);
}

async function showHeader(k: number): Promise<void> {
  const ctx = state.ctx!;
  const c = state.loaded!.containers[k]!;
  try {
    const v = await ctx.containerHeaderView(k);
    if (!v) {
      detail(h('div', {}, 'no container header chunk'));
      return;
    }
    const filter = h('input', { type: 'search', class: 'header-filter', 'aria-label': 'Filter the packages', placeholder: 'Filter packages' });
    const body = h('div', {});
    const current = detail(...headerNodes(v, c.label), filter, body);
    const fill = () => {
      const needle = filter.value.trim().toLowerCase();
      const rows = v.packages.filter((p) => !needle || (p.name ?? p.id).toLowerCase().includes(needle));
      const shown = rows.slice(0, HEADER_ROWS);
      const exportCells = new Map<string, HTMLTableCellElement>();
      const t = table(['package id', 'name', 'imports', 'exports'], shown.map((p) => [p.id, p.name ? wrappingText(p.name, 'path') : '', String(p.importedPackages.length), p.exportCount === undefined ? '…' : String(p.exportCount)]), 'header-packages', [2, 3]);
      t.querySelectorAll('tbody tr').forEach((tr, i) => exportCells.set(shown[i]!.id, tr.lastElementChild as HTMLTableCellElement));
      body.replaceChildren(t, ...(rows.length > shown.length ? [h('div', { class: 'muted' }, `first ${fmtInt(shown.length)} of ${fmtInt(rows.length)} packages: filter to see others`)] : []));
      void fillExportCounts(shown, exportCells, k, () => current() && body.contains(t));
    };
    filter.addEventListener('input', fill);
    fill();
  } catch (e) {
    setError([oneLine(e)]);
  }
}

/**
 * Container headers from UE 5.3 on no longer store export counts: the page counts them in the packages themselves,
 * a few at a time, while the table is on screen.
 */
async function fillExportCounts(rows: ContainerHeaderView['packages'], cells: Map<string, HTMLTableCellElement>, k: number, current: () => boolean): Promise<void> {
  for (const p of rows) {
    if (p.exportCount !== undefined) continue;
    if (!current()) return;
    let n: number | undefined;
    try {
      n = await state.ctx!.exportCount(k, BigInt(p.id));
    } catch {
      n = undefined;
    }
    const cell = cells.get(p.id);
    if (cell) cell.textContent = n === undefined ? '?' : String(n);
  }
  document.body.dataset.exportCounts = String(k);
}

function headerNodes(v: ContainerHeaderView, label: string): Node[] {
  return [
    h('h2', { class: 'header-title' }, `Container header: ${containerHeaderVersionLabel(v.version)}`),
    h('div', { class: 'muted' }, wrappingText(label), ` · layout ${v.version}`),
    h('div', {}, `container id ${v.containerId}, ${fmtInt(v.packageCount)} packages, ${v.optionalSegmentPackages} optional, ${v.localizedPackages} localized, ${v.packageRedirects} redirects, ${v.softPackageReferences} soft references`),
  ];
}
