import { hasHexField, hexFieldLength } from './io.js';
import type { ExportPropsJson } from './export-props.js';
import type { PackagePropsJson } from './package-props.js';
import type { Json } from './prims.js';
import { textDisplay } from './text.js';
import type { PropJson } from './values.js';

/** The properties of a package as an indented tree for people (the JSON form is for scripts and editing). */
export function renderProps(json: PackagePropsJson): string {
  const out: string[] = [`Package: ${json.package} (${json.form}, ${json.serialization} properties)`];
  for (const e of json.exports) renderExport(out, e);
  return `${out.join('\n')}\n`;
}

function renderExport(out: string[], e: ExportPropsJson): void {
  out.push('', `Export ${e.index} ${e.name} (${e.class || 'no class'})${e.serialization === 'raw' ? ' raw' : ''}`);
  if (e.error) out.push(`  ! ${e.error}`);
  for (const p of e.properties ?? []) renderProp(out, p, 1);
  if (e.objectGuid) out.push(`  (object GUID ${e.objectGuid})`);
  if (e.data) {
    const rows = Array.isArray(e.data.rows) ? e.data.rows : undefined;
    if (rows) {
      out.push(`  ${String(e.data.kind)} rows (${rows.length}):`);
      for (const r of rows) {
        const row = r as { name?: Json; value?: Json };
        out.push(`    ${nameOf(row.name)}:`);
        renderValue(out, row.value, 3);
      }
    } else {
      out.push(`  ${String(e.data.kind)}:`);
      renderValue(out, e.data as Json, 2);
    }
  }
  if (e.tail) out.push(`  (${hexFieldLength(e.tail, 'hex')} bytes of ${e.serialization === 'raw' ? 'data' : 'native data'} kept as they are, from offset ${e.tail.offset})`);
}

function nameOf(n: Json | undefined): string {
  if (typeof n === 'string') return n;
  return JSON.stringify(n);
}

function renderProp(out: string[], p: PropJson, depth: number): void {
  const pad = '  '.repeat(depth);
  const label = `${pad}${nameOf(p.name)}${p.arrayIndex ? `[${p.arrayIndex}]` : ''} (${p.type})`;
  if (hasHexField(p, 'raw')) {
    out.push(`${label} = <${hexFieldLength(p, 'raw')} bytes>`);
    return;
  }
  if (isScalar(p.value)) {
    out.push(`${label} = ${scalar(p.value)}`);
    return;
  }
  out.push(`${label}${p.type.startsWith('TextProperty') ? ` = ${JSON.stringify(textDisplay(p.value))}` : ''}`);
  if (!p.type.startsWith('TextProperty')) renderValue(out, p.value, depth + 1);
}

const isScalar = (v: Json | undefined) => v === null || v === undefined || typeof v !== 'object' || (Array.isArray(v) && v.length === 0);
const scalar = (v: Json | undefined) => (v === undefined ? '' : Array.isArray(v) ? '[]' : JSON.stringify(v));

function isPropList(v: Json | undefined): v is Json[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && 'type' in x && 'name' in x);
}

function renderValue(out: string[], v: Json | undefined, depth: number): void {
  const pad = '  '.repeat(depth);
  if (isScalar(v)) {
    out.push(`${pad}${scalar(v)}`);
    return;
  }
  if (isPropList(v)) {
    for (const p of v) renderProp(out, p as unknown as PropJson, depth);
    return;
  }
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      if (isScalar(x)) out.push(`${pad}[${i}] ${scalar(x)}`);
      else {
        out.push(`${pad}[${i}]`);
        renderValue(out, x, depth + 1);
      }
    });
    return;
  }
  for (const [k, x] of Object.entries(v as Record<string, Json>)) {
    if (isScalar(x)) out.push(`${pad}${k}: ${scalar(x)}`);
    else {
      out.push(`${pad}${k}:`);
      renderValue(out, x, depth + 1);
    }
  }
}
