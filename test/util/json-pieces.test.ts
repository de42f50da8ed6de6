import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unpack } from '../../src/unpack/index.js';
import type { JsonBytes } from '../../src/util/json-bytes.js';
import { JsonLazyArray, jsonPieces, utf8Batches } from '../../src/util/json-pieces.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

const same = (v: unknown, depth?: number) => expect([...jsonPieces(v, depth)].join('')).toBe(JSON.stringify(v, null, 1) ?? 'null');

describe('jsonPieces: JSON.stringify(value, null, 1) in pieces', () => {
  it('gives the same text for nested objects and arrays, empty ones, and members JSON leaves out', () => {
    const doc = {
      tool: 'x',
      n: 3,
      none: null,
      skipped: undefined,
      fn: () => 1,
      empty: [],
      emptyObj: {},
      list: [1, 'two', null, undefined, { a: [1, 2, { b: [] }], c: 'line\nbreak "quoted"' }, [[]]],
      deep: { a: { b: { c: { d: { e: [1, { f: 2 }] } } } } },
      date: new Date(0),
    };
    for (const d of [0, 1, 2, 4, 8]) same(doc, d);
    for (const v of [1, 'a', null, [], {}, [1], { a: 1 }, [undefined]]) same(v);
  });

  it('writes a JsonLazyArray as the array its elements make, at any depth and batch boundary', () => {
    for (const n of [0, 1, 255, 256, 257, 600]) {
      const make = (i: number) => ({ i, name: `n${i}`, list: [i, i + 1] });
      const lazy = { top: { items: new JsonLazyArray(n, make) }, flat: new JsonLazyArray(n, (i) => i) };
      const eager = { top: { items: Array.from({ length: n }, (_, i) => make(i)) }, flat: Array.from({ length: n }, (_, i) => i) };
      for (const d of [1, 2, 3, 4, 6]) expect([...jsonPieces(lazy, d)].join('')).toBe(JSON.stringify(eager, null, 1));
      expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
      // Elements given as text (each line after the first led by the indent) take the place of the objects where
      // elements are written whole (the list at depth 2: split depths up to 3).
      const text = (i: number, indent: string) => JSON.stringify(make(i), null, 1).replace(/\n/g, `\n${indent}`);
      const asText = { top: { items: new JsonLazyArray(n, make, text) } };
      for (const d of [1, 2, 3, 4]) expect([...jsonPieces(asText, d)].join('')).toBe(JSON.stringify({ top: eager.top }, null, 1));
      const textOnly = { top: { items: new JsonLazyArray(n, () => ({ wrong: true }), text) } };
      expect([...jsonPieces(textOnly, 3)].join('')).toBe(JSON.stringify({ top: eager.top }, null, 1));
    }
  });

  it('writes elements given as bytes across pieces: the same text, each piece taken before the next is pulled', () => {
    const make = (i: number) => ({ i, name: `ñame ${i} ${'x'.repeat(i % 300)}` });
    const text = (i: number, indent: string) => JSON.stringify(make(i), null, 1).replace(/\n/g, `\n${indent}`);
    const bytes = (i: number, indent: string, out: JsonBytes) => out.text(text(i, indent));
    // 0, 1 and 6,000 elements (~1.2 MB: more than one piece), at depth 2 and 1.
    for (const n of [0, 1, 6000]) {
      const lazy = { top: { items: new JsonLazyArray(n, make, undefined, bytes) }, after: 1 };
      const eager = { top: { items: Array.from({ length: n }, (_, i) => make(i)) }, after: 1 };
      for (const d of [3, 2]) {
        const pieces = Array.from(jsonPieces(lazy, d), (p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p)));
        expect(Buffer.concat(pieces).toString('utf8')).toBe(JSON.stringify(eager, null, 1));
        if (n === 6000 && d === 3) expect(pieces.filter((p) => p.length > 100_000).length).toBeGreaterThan(1);
      }
    }
  });

  it('encodes in batches that join to the UTF-8 of the whole text', () => {
    const doc = { names: Array.from({ length: 3000 }, (_, i) => ({ i, s: `ñame ${i} ✓` })) };
    // Each batch is taken before the next is pulled: they share one buffer.
    const bytes = Buffer.concat(Array.from(utf8Batches(jsonPieces(doc), 1000), (b) => Buffer.from(b)));
    expect(bytes.toString('utf8')).toBe(JSON.stringify(doc, null, 1));
    expect([...utf8Batches(jsonPieces(doc), 1000)].length).toBeGreaterThan(10);
  });
});

describe.skipIf(!hasCorpus)('the unpack manifest written in pieces', () => {
  it('is the text JSON.stringify makes of it (ue5.1-patchtest)', async () => {
    const out = tempDir();
    const r = await unpack([corpusPath('ue5.1-patchtest')], out, { threads: 0 });
    expect(r.failures).toEqual([]);
    const text = readFileSync(join(out, 'iostore-manifest.json'), 'utf8');
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 1)}\n`);
    expect((JSON.parse(text) as { containers: unknown[] }).containers.length).toBeGreaterThan(1);
  });
});
