import { parseLocres, type Locres } from '../../locres/locres.js';
import { escapeControl } from '../../util/quote.js';
import { renderJson, renderTable } from '../format.js';

/** `inspect` of a .locres: its entries as a table (namespace, key, source hash, text), or JSON. */
export function inspectLocres(file: string, bytes: Uint8Array, json: boolean): string {
  const l = parseLocres(bytes, { source: file });
  return json ? renderJson(l) : renderLocres(l);
}

function renderLocres(l: Locres): string {
  const head = `Localization:     .locres version ${l.version} (${l.versionName}), ${l.namespaceCount} namespace(s), ${l.entries.length} entries\n\n`;
  // Texts may hold line breaks and tabs: escaped, so that each entry stays one row.
  const rows = l.entries.map((e) => [escapeControl(e.namespace), escapeControl(e.key), `0x${e.sourceHash.toString(16).padStart(8, '0')}`, escapeControl(e.text)]);
  return head + renderTable(['namespace', 'key', 'source hash', 'text'], rows, ['left', 'left', 'left', 'left']);
}
