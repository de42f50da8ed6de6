/**
 * The Properties tab: every export's properties as the library reads them (`iostore props`), as a tree that opens
 * export by export, and as the JSON document to save, edit and apply back (which downloads the rewritten package).
 * Unversioned packages need the game's type mappings: the tab says so and offers the picker.
 */
import { isLegacyPackage } from '../../legacy/package.js';
import { packageNameFromContentPath } from '../../legacy/paths.js';
import { applyLegacyProps, applyZenProps, keptByteLength, readLegacyProps, readZenProps, type ExportPropsJson, type PackagePropsJson, type PackagePropsResult, type PropJson, type ReadPropsOptions } from '../../props/index.js';
import { fmtInt, h, saveBlob } from '../dom.js';
import { chooseMappings, currentMappings, whenMappingsChange } from '../mappings.js';
import { oneLine } from '../session.js';
import { setError } from '../status.js';
import { state } from '../state.js';
import type { Subject } from '../subject.js';
import { paneJson } from './json.js';
import type { SubjectView, ViewContext } from './view.js';

type Json = unknown;

/** The package's bytes (with a legacy package's .uexp) and how to read and rewrite them. */
interface PropsSource {
  read(o: ReadPropsOptions): PackagePropsResult;
  apply(json: PackagePropsJson, o: ReadPropsOptions): Array<{ name: string; bytes: Uint8Array }>;
}

async function sourceOf(s: Subject): Promise<PropsSource> {
  const bytes = await s.bytes();
  if (isLegacyPackage(bytes)) {
    const uexp = await s.companion('.uexp');
    const packageName = packageNameFromContentPath(s.path);
    const base = { source: s.path, ...(packageName ? { packageName } : {}) };
    const stem = s.name.replace(/\.[^.]+$/, '');
    return {
      read: (o) => readLegacyProps(bytes, uexp, { ...base, ...o }),
      apply(json, o) {
        const r = applyLegacyProps(bytes, uexp, json, { ...base, ...o });
        return [{ name: s.name, bytes: r.uasset }, ...(r.uexp ? [{ name: `${stem}.uexp`, bytes: r.uexp }] : [])];
      },
    };
  }
  const scriptObjects = await state.ctx?.scriptObjects();
  const base = { source: s.path, ...(scriptObjects ? { scriptObjects } : {}) };
  return {
    read: (o) => readZenProps(bytes, { ...base, ...o }),
    apply: (json, o) => [{ name: s.name, bytes: applyZenProps(bytes, json, { ...base, ...o }).bytes }],
  };
}

const isProp = (v: unknown): v is PropJson => v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as PropJson).type === 'string' && 'name' in v;
const isPropList = (v: unknown): v is PropJson[] => Array.isArray(v) && v.length > 0 && v.every(isProp);

function nameText(n: unknown): string {
  if (typeof n === 'string') return n;
  if (n !== null && typeof n === 'object' && typeof (n as { name?: unknown }).name === 'string') {
    const { name, number } = n as { name: string; number?: number };
    return number ? `${name}_${number - 1}` : name;
  }
  return JSON.stringify(n);
}

function scalarText(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
}

const isScalar = (v: unknown) => v === null || typeof v !== 'object';

/** A named element (a DataTable row, a string table entry): its name beside its index. */
function itemName(v: unknown): string {
  const n = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as { name?: unknown; key?: unknown }).name ?? (v as { key?: unknown }).key : undefined;
  return typeof n === 'string' ? ` ${n}` : '';
}

/** A branch that builds its children when first opened (big packages open fast; most branches are never opened). */
function branch(label: Node[], cls: string, children: () => Node[], open = false): HTMLElement {
  const d = h('details', { class: cls });
  d.append(h('summary', {}, ...label));
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    d.append(h('div', { class: 'kids' }, ...children()));
  };
  d.addEventListener('toggle', () => d.open && build());
  if (open) {
    d.open = true;
    build();
  }
  return d;
}

function leaf(label: Node[], value: string, cls = 'leaf'): HTMLElement {
  return h('div', { class: cls }, ...label, h('span', { class: 'val' }, value));
}

/** One value under its label: scalars on the line, structs, arrays and maps as branches. */
function valueNode(label: Node[], v: Json, cls: string): HTMLElement {
  if (isScalar(v)) return leaf(label, ` = ${scalarText(v)}`, cls);
  if (isPropList(v)) return branch(label, cls, () => v.map(propNode));
  if (Array.isArray(v)) {
    if (v.length === 0) return leaf(label, ' = []', cls);
    return branch([...label, h('span', { class: 'count' }, ` [${fmtInt(v.length)}]`)], cls, () => v.map((x, i) => valueNode([h('span', { class: 'key' }, `[${i}]${itemName(x)}`)], x, 'item')));
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 0) return leaf(label, ' = {}', cls);
  return branch(label, cls, () => keys.map((k) => valueNode([h('span', { class: 'key' }, k)], o[k], 'item')));
}

function propNode(p: PropJson): HTMLElement {
  const label = [h('span', { class: 'key' }, `${nameText(p.name)}${p.arrayIndex ? `[${p.arrayIndex}]` : ''}`), h('span', { class: 'type' }, ` ${p.type}`)];
  const el = Object.prototype.hasOwnProperty.call(p, 'raw') ? leaf(label, ` = <${fmtInt(keptByteLength(p, 'raw'))} bytes kept as they are>`, 'prop raw') : valueNode(label, p.value, 'prop');
  el.dataset.name = nameText(p.name);
  return el;
}

function exportNode(e: ExportPropsJson, open: boolean): HTMLElement {
  const cls = e.class.replace(/^.*[./:]/, '');
  const n = e.properties?.length ?? 0;
  const label = [
    h('span', { class: 'key' }, `${e.index} ${e.name}`),
    h('span', { class: 'type' }, ` ${cls}`),
    h('span', { class: 'count' }, e.serialization === 'raw' ? ' (kept as bytes)' : ` ${fmtInt(n)} ${n === 1 ? 'property' : 'properties'}`),
  ];
  const node = branch(label, `props-export${e.serialization === 'raw' ? ' raw' : ''}`, () => [
    ...(e.error ? [h('div', { class: 'warn' }, e.error)] : []),
    ...(e.properties ?? []).map(propNode),
    ...(e.data !== undefined ? [valueNode([h('span', { class: 'key' }, 'data')], e.data, 'prop data')] : []),
    ...(e.tail ? [h('div', { class: 'leaf tail' }, `${fmtInt(keptByteLength(e.tail, 'hex'))} bytes of ${e.serialization === 'raw' ? 'data' : 'native data'} kept as they are, from offset ${fmtInt(e.tail.offset)}`)] : []),
  ], open);
  node.dataset.export = e.name;
  return node;
}

/** The line about type mappings, with the picker, shown with unversioned packages. */
function mappingsLine(json: PackagePropsJson): Node[] {
  if (json.serialization !== 'unversioned') return [];
  const m = currentMappings();
  const pick = h('button', { type: 'button', 'data-action': 'choose-usmap' }, m ? 'Choose other mappings…' : 'Choose .usmap…');
  pick.addEventListener('click', chooseMappings);
  const text = m ? `Unversioned properties, read with ${m.name}.` : 'Unversioned properties: their names and types are in the game\'s type mappings (a .usmap from a mappings dumper). Choose it to read them.';
  return [h('div', { class: m ? 'muted mappings' : 'warn mappings' }, text, ' ', pick)];
}

async function render(s: Subject, cx: ViewContext): Promise<void> {
  // New mappings read the package again, if this tab is still the one shown.
  const shownHere = () => cx.current() && document.getElementById('view-tab-props')?.getAttribute('aria-selected') === 'true';
  whenMappingsChange(() => shownHere() && void render(s, cx).catch((e) => cx.show(h('div', { class: 'warn' }, oneLine(e)))));
  const src = await s.memo('props-source', () => sourceOf(s));
  const m = currentMappings();
  const options: ReadPropsOptions = m ? { mappings: m.usmap } : {};
  const { json, warnings } = src.read(options);
  const typed = json.exports.filter((e) => e.serialization !== 'raw').length;
  const save = h('button', { type: 'button', 'data-action': 'save-props' }, 'Save .json');
  let text: string | undefined;
  const jsonText = () => (text ??= paneJson(json));
  save.addEventListener('click', () => saveBlob(new Blob([jsonText()], { type: 'application/json' }), `${s.name}.props.json`));
  const asJson = h('button', { type: 'button', 'data-action': 'props-json', 'aria-pressed': 'false' }, 'JSON');
  const apply = h('button', { type: 'button', 'data-action': 'apply-props', title: 'write an edited .props.json back: downloads the rewritten package' }, 'Apply .json…');
  const picker = h('input', { type: 'file', accept: '.json,application/json', hidden: '', 'data-role': 'apply-props' });
  const body = h('div', { class: 'props-tree' }, ...json.exports.map((e, i) => exportNode(e, i === 0 && json.exports.length <= 8)));
  let pre: HTMLElement | undefined;
  asJson.addEventListener('click', () => {
    const on = asJson.getAttribute('aria-pressed') !== 'true';
    asJson.setAttribute('aria-pressed', String(on));
    pre ??= h('pre', { class: 'json props-json', tabindex: '0', 'aria-label': `Properties of ${s.name} as JSON` }, jsonText());
    body.replaceWith(on ? pre : body);
    if (!on) pre.replaceWith(body);
  });
  apply.addEventListener('click', () => picker.click());
  picker.addEventListener('change', () => {
    const f = picker.files?.[0];
    picker.value = '';
    if (!f) return;
    void f
      .text()
      .then((text) => {
        for (const out of src.apply(JSON.parse(text) as PackagePropsJson, options)) saveBlob(new Blob([out.bytes as BlobPart]), out.name);
        document.body.dataset.applied = String(Date.now());
      })
      .catch((e) => setError([`${f.name}: ${oneLine(e)}`]));
  });
  cx.show(
    h('div', { class: 'buttons' }, save, asJson, apply, picker),
    ...mappingsLine(json),
    h('p', { class: 'muted props-summary' }, `${json.serialization} properties: ${typed === json.exports.length ? `all ${fmtInt(typed)} exports read` : `${fmtInt(typed)} of ${fmtInt(json.exports.length)} exports read, the others kept as bytes`}.`),
    ...(warnings.length ? [h('details', { class: 'warn props-warnings' }, h('summary', {}, `${warnings.length} ${warnings.length === 1 ? 'note' : 'notes'}`), ...warnings.map((w) => h('div', {}, w)))] : []),
    body,
  );
}

export const propsTab: SubjectView = {
  id: 'props',
  label: 'Properties',
  applies: (s) => s.isPackage,
  render,
};
