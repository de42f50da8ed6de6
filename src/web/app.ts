/**
 * The page: drop or pick a Paks folder, browse what its containers mount, look inside packages and chunks, and
 * extract to a .zip. Everything happens in this tab; files are read in slices and never leave the machine.
 * Each part of the page lives in the module named after it; this one wires them together.
 */
import { wireCharts } from './charts.js';
import { $ } from './dom.js';
import { showSideTab } from './details.js';
import { extract, updateExtractButtons } from './extraction.js';
import { wireLayout } from './layout.js';
import { wireLoading } from './loading.js';
import { wireMappings } from './mappings.js';
import { perf, state } from './state.js';
import { rowSubject } from './subject.js';
import { applyView, wireTable } from './table.js';
import { wireTabList } from './tabs.js';
import { wireTree } from './tree.js';

/** What tests read: timings, the state, and a row's bytes read as Download reads them (hashed, to compare). */
(window as unknown as { iostoreWeb: unknown }).iostoreWeb = {
  perf,
  state,
  async rowSha256(idx: number): Promise<string> {
    const parts: Uint8Array[] = [];
    for await (const p of rowSubject(state.loaded!, state.ctx!, idx, state.key, state.generation).pieces()) parts.push(p);
    const digest = await crypto.subtle.digest('SHA-256', await new Blob(parts as BlobPart[]).arrayBuffer());
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
  },
};

function wireToolbar(): void {
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
  $('extract-shown').addEventListener('click', () => void extract('shown'));
  $('extract-all').addEventListener('click', () => void extract('all'));
  $('cancel').addEventListener('click', () => {
    state.cancel = true;
  });
  if (!('showSaveFilePicker' in window)) $('to-disk-label').hidden = true;
}

wireLoading();
wireMappings();
wireToolbar();
wireTable();
wireTree();
wireCharts();
wireLayout();
wireTabList($('tabs'), (tab) => showSideTab(tab.dataset.tab as 'details' | 'containers'));
updateExtractButtons();
