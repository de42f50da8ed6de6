/** The text tab: config, JSON and other text files, decoded as UTF-8 or by their byte-order mark. */
import { fmtBytes, h } from '../dom.js';
import type { SubjectView } from './view.js';

const TEXT_EXT = /\.(ini|json|txt|csv|xml|html?|md|log|uproject|uplugin|cfg|lua|py|js|yaml|yml|po|locmeta)$/i;
const TEXT_LIMIT = 4 << 20;

export function decodeText(b: Uint8Array): string {
  if (b[0] === 0xff && b[1] === 0xfe) return new TextDecoder('utf-16le').decode(b.subarray(2));
  if (b[0] === 0xfe && b[1] === 0xff) return new TextDecoder('utf-16be').decode(b.subarray(2));
  return new TextDecoder('utf-8').decode(b);
}

export const textTab: SubjectView = {
  id: 'text',
  label: 'Text',
  applies: (s) => TEXT_EXT.test(s.path),
  async render(s, cx) {
    const bytes = await s.bytes(TEXT_LIMIT);
    cx.show(h('pre', { class: 'text', tabindex: '0', 'aria-label': `Text of ${s.name}` }, decodeText(bytes)), ...(s.size > bytes.length ? [h('div', {}, `first ${fmtBytes(bytes.length)} shown`)] : []));
  },
};
