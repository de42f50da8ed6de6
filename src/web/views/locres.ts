/** The strings tab of a .locres: every text by namespace and key, as `iostore inspect` lists them. */
import { parseLocres, type Locres } from '../../locres/locres.js';
import { fmtInt, h, table, wrappingText } from '../dom.js';
import type { Subject } from '../subject.js';
import type { SubjectView } from './view.js';

export const isLocresPath = (p: string) => /\.locres$/i.test(p);

export const locresOf = (s: Subject): Promise<Locres> => s.memo('locres', async () => parseLocres(await s.bytes(), { source: s.path }));

export const locresTab: SubjectView = {
  id: 'strings',
  label: 'Strings',
  applies: (s) => isLocresPath(s.path),
  async render(s, cx) {
    const l = await locresOf(s);
    cx.show(
      h('div', {}, `.locres version ${l.version} (${l.versionName}): ${fmtInt(l.namespaceCount)} namespace(s), ${fmtInt(l.entries.length)} entries`),
      table(['namespace', 'key', 'source hash', 'text'], l.entries.map((e) => [wrappingText(e.namespace), wrappingText(e.key), `0x${e.sourceHash.toString(16).padStart(8, '0')}`, e.text]), 'locres'),
    );
  },
};
