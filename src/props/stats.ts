import { hasHexField } from './io.js';
import type { ExportPropsJson } from './export-props.js';
import type { PackagePropsJson } from './package-props.js';

/** How much of a package the reader typed: exports fully typed, typed with bytes kept (a tail or a raw value), raw. */
export interface PropsStats {
  exports: number;
  typed: number;
  withRaw: number;
  raw: number;
}

function hasRawValue(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasRawValue);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    // Looked at by key: reading a kept `raw` would turn its bytes into hex.
    for (const k in o) if (k === 'raw' ? hasHexField(o, 'raw') : hasRawValue(o[k])) return true;
  }
  return false;
}

export function exportIsTyped(e: ExportPropsJson): boolean {
  return e.serialization !== 'raw' && !e.tail && !hasRawValue(e.properties) && !hasRawValue(e.data);
}

export function propsStats(json: PackagePropsJson): PropsStats {
  const s: PropsStats = { exports: json.exports.length, typed: 0, withRaw: 0, raw: 0 };
  for (const e of json.exports) {
    if (e.serialization === 'raw') s.raw++;
    else if (exportIsTyped(e)) s.typed++;
    else s.withRaw++;
  }
  return s;
}
