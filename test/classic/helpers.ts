import { readdirSync, readFileSync } from 'node:fs';
import { encodeCompactIndex } from '../../src/classic/index.js';
import { corpusPath, hasCorpus } from '../corpus.js';

export const UE1_DIR = corpusPath('ue1-packages');
export const ue1Files: string[] = hasCorpus ? readdirSync(UE1_DIR).sort() : [];
export const readUe1 = (name: string): Uint8Array => new Uint8Array(readFileSync(`${UE1_DIR}/${name}`));

export interface SyntheticPackage {
  version: number;
  licensee?: number;
  names: string[];
  /** [class package name, class name, outer ref (i32), object name] */
  imports: Array<[number, number, number, number]>;
  /** [class ref, super ref, outer ref (i32), object name, data size] */
  exports: Array<[number, number, number, number, number]>;
}

/**
 * Writes a classic package the way the engine lays one out: header, names, export data, imports, exports (and,
 * before v68, the heritage table of one GUID at the end). Lets tests cover versions the corpus lacks and place
 * exact bad values.
 */
export function buildClassicPackage(p: SyntheticPackage): Uint8Array {
  const out: number[] = [];
  const u32 = (v: number) => out.push(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff);
  const ci = (v: number) => out.push(...encodeCompactIndex(v));
  const patch = (at: number, v: number) => {
    out[at] = v & 0xff; out[at + 1] = (v >>> 8) & 0xff; out[at + 2] = (v >>> 16) & 0xff; out[at + 3] = (v >>> 24) & 0xff;
  };
  const old = p.version < 68;
  u32(0x9e2a83c1);
  u32(p.version | ((p.licensee ?? 0) << 16));
  u32(1);
  u32(p.names.length); u32(0); u32(p.exports.length); u32(0); u32(p.imports.length); u32(0);
  if (old) { u32(1); u32(0); } else {
    for (let i = 0; i < 16; i++) out.push(i + 1);
    u32(1); u32(p.exports.length); u32(p.names.length);
  }
  patch(0x10, out.length);
  for (const n of p.names) {
    if (p.version >= 64) ci(n.length + 1);
    for (const ch of n) out.push(ch.charCodeAt(0));
    out.push(0);
    u32(0x00070010);
  }
  const dataAt: number[] = [];
  for (const e of p.exports) { dataAt.push(out.length); for (let i = 0; i < e[4]; i++) out.push(0xaa); }
  patch(0x20, out.length);
  for (const [cp, cn, outer, name] of p.imports) { ci(cp); ci(cn); u32(outer); ci(name); }
  patch(0x18, out.length);
  p.exports.forEach(([cls, sup, outer, name, size], i) => {
    ci(cls); ci(sup); u32(outer); ci(name); u32(0x00070004); ci(size); if (size > 0) ci(dataAt[i]!);
  });
  if (old) { patch(0x28, out.length); for (let i = 0; i < 16; i++) out.push(0xf0 + i); }
  return Uint8Array.from(out);
}

/** A small script package: Core and Engine imported, one class with one function. */
export const tinyPackage = (version: number): SyntheticPackage => ({
  version,
  names: ['None', 'Core', 'Engine', 'Package', 'Class', 'Actor', 'MyClass', 'Function', 'MyFunction'],
  imports: [
    [1, 3, 0, 1], // Core.Package Core
    [1, 3, 0, 2], // Core.Package Engine
    [1, 4, -2, 5], // Core.Class Engine.Actor
    [1, 4, -1, 7], // Core.Class Core.Function
  ],
  exports: [
    [0, -3, 0, 6, 20], // MyClass, a class extending Engine.Actor
    [-4, 0, 1, 8, 0], // MyClass.MyFunction, a function with no data
  ],
});
