/** The JSON tab: what `iostore inspect --json` prints for the same file (a package's view, a .locres), to copy or save. */
import { h, saveBlob } from '../dom.js';
import type { Subject } from '../subject.js';
import { locresOf, isLocresPath } from './locres.js';
import type { SubjectView } from './view.js';

async function jsonOf(s: Subject): Promise<unknown> {
  if (isLocresPath(s.path)) return locresOf(s);
  const v = await s.packageView();
  if (typeof v === 'string') throw new Error(v);
  return v;
}

/**
 * The page's JSON text (shown and saved): a member a line, not the CLI's record a line (src/util/json-text.ts): in the
 * details pane's width a long record wrapped after its indent, a blank line before every row. The same data.
 */
export function paneJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export const jsonTab: SubjectView = {
  id: 'json',
  label: 'JSON',
  applies: (s) => s.isPackage || isLocresPath(s.path),
  async render(s, cx) {
    const text = paneJson(await jsonOf(s));
    const save = h('button', { type: 'button', 'data-action': 'save-json' }, 'Save .json');
    save.addEventListener('click', () => saveBlob(new Blob([text], { type: 'application/json' }), `${s.name}.json`));
    cx.show(h('div', { class: 'buttons' }, save), h('pre', { class: 'json', tabindex: '0', 'aria-label': `JSON of ${s.name}` }, text));
  },
};
