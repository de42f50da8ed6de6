/**
 * The details pane: the shown file's facts, its actions (Download, Check hash) and its views as tabs. Every
 * change of what the pane shows is counted, so that a view finishing late for an earlier file (or an earlier set)
 * never writes over the current one.
 */
import { $, facts, h, wrappingText } from './dom.js';
import { downloadSubject } from './extraction.js';
import { oneLine } from './session.js';
import { state } from './state.js';
import { setError } from './status.js';
import type { Subject } from './subject.js';
import { selectTab, wireTabList } from './tabs.js';
import { subjectViews, type SubjectView, type ViewContext } from './views/index.js';

export const DETAILS_HINT = 'Select a row: packages show their names, imports and exports; .locres files their strings; text files their text; any file its bytes.';

let shown = 0;
/** The tab the user last picked: the next file opens on it too, when it has one. */
let preferred: string | undefined;

export function showSideTab(name: 'details' | 'containers'): void {
  const tab = document.querySelector<HTMLElement>(`#tabs [data-tab="${name}"]`)!;
  selectTab($('tabs'), tab);
}

/** Empties the pane (a new set, a failed load): nothing in it refers to what was there before. */
export function clearDetails(text = DETAILS_HINT): void {
  shown++;
  $('details').replaceChildren(h('p', { class: 'muted' }, text));
}

/** Shows other content in the pane (a container header). */
export function detail(...nodes: Array<Node | string>): () => boolean {
  const mine = ++shown;
  const generation = state.generation;
  showSideTab('details');
  $('details').replaceChildren(...nodes);
  return () => mine === shown && generation === state.generation;
}

/** Shows a file: `lead` goes above it (the chooser of loose files); `view` picks the tab to open on. */
export async function showSubject(s: Subject, lead: Node[] = []): Promise<void> {
  const mine = ++shown;
  const current = () => mine === shown && s.generation === state.generation;
  const views = s.unreadable ? [] : subjectViews.filter((v) => v.applies(s));
  const actions = h('div', { class: 'buttons', role: 'group', 'aria-label': 'Actions' });
  if (!s.unreadable) {
    const download = h('button', { type: 'button', 'data-action': 'download' }, 'Download');
    download.addEventListener('click', () => void downloadSubject(s).catch((e) => setError([oneLine(e)])));
    actions.append(download);
    if (s.verify) {
      const verify = s.verify;
      const check = h('button', { type: 'button', 'data-action': 'verify' }, 'Check hash');
      check.addEventListener('click', () => {
        actions.querySelector('.verdict')?.remove();
        void verify()
          .then((v) => {
            if (!current()) return;
            const name = v.algorithm === 'blake3' ? 'BLAKE3-160' : 'SHA-1';
            actions.append(h('span', { class: `verdict ${v.ok ? 'ok' : 'bad'}`, role: 'status', title: `computed ${v.actual}, chunk meta ${v.expected}` }, v.ok ? `✔ ${name} matches` : `✘ ${name} differs from the chunk meta`));
          })
          .catch((e) => setError([oneLine(e)]));
      });
      actions.append(check);
    }
  }
  const panel = h('div', { id: 'view', role: 'tabpanel', tabindex: '0' });
  const list = h('div', { role: 'tablist', class: 'view-tabs', 'aria-label': `Views of ${s.name}`, 'data-panels': 'shared' }, ...views.map((v) => h('button', { type: 'button', role: 'tab', id: `view-tab-${v.id}`, 'data-view': v.id, 'aria-controls': 'view', 'aria-selected': 'false', tabindex: '-1' }, v.label)));
  const cx: ViewContext = { current, show: (...nodes) => void (current() && panel.replaceChildren(...nodes)) };
  const open = async (v: SubjectView) => {
    const tab = list.querySelector<HTMLElement>(`[data-view="${v.id}"]`)!;
    selectTab(list, tab);
    panel.setAttribute('aria-labelledby', tab.id);
    panel.replaceChildren(h('div', { class: 'muted' }, 'Reading…'));
    try {
      await v.render(s, cx);
    } catch (e) {
      cx.show(h('div', { class: 'warn' }, oneLine(e)));
    }
  };
  wireTabList(list, (tab) => {
    preferred = tab.dataset.view;
    void open(views.find((v) => v.id === tab.dataset.view)!);
  });
  showSideTab('details');
  $('details').replaceChildren(
    ...lead,
    h('h2', { class: 'subject-name' }, wrappingText(s.name)),
    facts(s.facts, 'subject'),
    actions,
    ...(s.unreadable ? [h('div', { class: 'warn' }, s.unreadable)] : views.length ? [list, panel] : []),
  );
  const first = views.find((v) => v.id === preferred) ?? views[0];
  if (first) await open(first);
}
