import { describe, expect, it } from 'vitest';
import { renderJson } from '../../src/util/json-text.js';

/** What JSON.stringify makes of a value (bigints as strings), parsed: renderJson must carry the same data. */
const same = (v: unknown) => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? 'null');

describe('renderJson', () => {
  it('writes each record of an array on one line and indents the rest by two spaces', () => {
    const doc = { file: 'a.utoc', count: 2, inputs: ['a.utoc'], rows: [{ index: 0, path: 'A', ok: true }, { index: 1, path: 'B', ok: null }], empty: [], none: {} };
    expect(renderJson(doc)).toBe(
      '{\n  "file": "a.utoc",\n  "count": 2,\n  "inputs": [\n    "a.utoc"\n  ],\n  "rows": [\n' +
        '    {"index":0,"path":"A","ok":true},\n    {"index":1,"path":"B","ok":null}\n  ],\n  "empty": [],\n  "none": {}\n}\n',
    );
    // An object that holds an object or an array is not a record: indented, its records a line each.
    expect(renderJson([{ name: 'x', kids: [{ a: 1 }] }])).toBe('[\n  {\n    "name": "x",\n    "kids": [\n      {"a":1}\n    ]\n  }\n]\n');
    // Outside an array an object of plain values stays indented (info's view of one container).
    expect(renderJson({ a: 1 })).toBe('{\n  "a": 1\n}\n');
  });

  it('cuts lines only between records, whatever their strings hold', () => {
    const tricky = ['},{"', '"},{"a":1}', '\\', '\\"},{"', '},{}', '{', 'line\nbreak', 'é😀', '\u0000'];
    const rows = tricky.map((path, index) => ({ index, path }));
    const text = renderJson({ rows });
    expect(JSON.parse(text)).toEqual({ rows });
    const lines = text.split('\n');
    expect(lines).toHaveLength(tricky.length + 5); // {, "rows": [, the rows, ], } and the end
    rows.forEach((r, k) => expect(JSON.parse(lines[2 + k]!.replace(/,$/, ''))).toEqual(r));
    // Empty records and records whose members JSON leaves out, among others.
    const mixed = [{}, { a: undefined }, { b: 1, f: () => 0 }, { c: '},{}' }, {}];
    const m = renderJson(mixed);
    expect(JSON.parse(m)).toEqual(same(mixed));
    expect(m).toBe('[\n  {},\n  {},\n  {"b":1},\n  {"c":"},{}"},\n  {}\n]\n');
  });

  it('carries the same data as JSON.stringify: bigints, toJSON, holes, nesting', () => {
    const values: unknown[] = [
      null, 0, -1.5, 'text', true, [], {}, [1, [2, [3]]], [null, undefined, () => 0], { big: 2n ** 64n, list: [{ id: 1n }] },
      { when: new Date(0), rows: [{ when: new Date(1) }] }, [, 1, , 2], { a: [{ b: { c: [{ d: 1 }] } }] }, [{ x: 1 }, 2, 'y', [{ z: 3 }]],
    ];
    for (const v of values) expect(JSON.parse(renderJson(v))).toEqual(same(v));
    // Random documents: records, arrays and objects at any depth.
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) % n);
    const make = (depth: number): unknown => {
      const k = rnd(depth > 3 ? 4 : 7);
      if (k === 0) return rnd(1000) - 500;
      if (k === 1) return ['', '},{"', 'a"b', '\\'][rnd(4)];
      if (k === 2) return rnd(2) === 0;
      if (k === 3) return null;
      if (k === 4) return Array.from({ length: rnd(4) }, () => make(depth + 1));
      if (k === 5) return Array.from({ length: rnd(4) }, () => ({ i: rnd(9), s: '},{"x' }));
      return Object.fromEntries(Array.from({ length: rnd(4) }, (_, i) => [`k${i}`, make(depth + 1)]));
    };
    for (let n = 0; n < 300; n++) {
      const v = make(0);
      expect(JSON.parse(renderJson(v))).toEqual(same(v));
    }
  });
});
