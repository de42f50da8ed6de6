import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ScriptObjectIndex } from '../../src/convert/index.js';
import { IoStoreError } from '../../src/errors.js';
import { ContainerReader } from '../../src/index.js';
import { NULL_OBJECT_INDEX } from '../../src/zen/object-index.js';
import { parseScriptObjects, readScriptObjectTable } from '../../src/zen/script-objects.js';
import { corpusPath, hasCorpus } from '../corpus.js';

/**
 * The ScriptObjects chunk of a global container, read once per file (five tests read the same two chunks; each read
 * and parse of a global took ~1 CPU s). The tests only read the bytes.
 */
const chunks = new Map<string, Promise<Uint8Array>>();
const scriptChunk = (globalUtoc: string): Promise<Uint8Array> => {
  let c = chunks.get(globalUtoc);
  if (!c) chunks.set(globalUtoc, (c = readScriptChunk(globalUtoc)));
  return c;
};
/** parseScriptObjects of that chunk, once per global. */
const parsedOf = new Map<string, ReturnType<typeof parseScriptObjects>>();
const parsedChunk = async (globalUtoc: string) => {
  const bytes = await scriptChunk(globalUtoc);
  let p = parsedOf.get(globalUtoc);
  if (!p) parsedOf.set(globalUtoc, (p = parseScriptObjects(bytes)));
  return p;
};

async function readScriptChunk(globalUtoc: string): Promise<Uint8Array> {
  const g = await ContainerReader.open(corpusPath(globalUtoc));
  try {
    for (let i = 0; i < g.toc.chunkCount; i++) if (g.toc.chunkTypeName(i) === 'ScriptObjects') return await g.readChunk(i);
  } finally {
    await g.close();
  }
  throw new Error('no ScriptObjects chunk');
}

describe.skipIf(!hasCorpus)('ScriptObjectIndex over the raw chunk (names decoded on demand)', () => {
  it.each(['ue5.8-cue4parse/global/global.utoc', 'ue6.0-cue4parse/global/global.utoc'])('%s: same answers as over parsed entries', async (g) => {
    const bytes = await scriptChunk(g);
    const parsed = await parsedChunk(g);
    const table = readScriptObjectTable(bytes);
    expect(table.count).toBe(parsed.objects.length);
    expect(table.names.count).toBe(parsed.names.length);
    const lazy = new ScriptObjectIndex(table);
    const full = new ScriptObjectIndex(parsed);
    // Every 7th entry: path, outer, CDO class and class-ness agree; every name decodes as the full batch has it. (The
    // comparisons are plain and expect sees the entries that differ: tens of thousands of expect calls had been most
    // of the test's time.)
    const differ: Array<{ entry: string; lazy: unknown; full: unknown }> = [];
    for (let k = 0; k < parsed.objects.length; k += 7) {
      const o = parsed.objects[k]!;
      const g = o.globalIndex;
      const lazyOne = [lazy.ref(g), lazy.outer(g), lazy.cdoClass(g), lazy.isClass(g)];
      const fullOne = [full.ref(g), o.outerIndex === NULL_OBJECT_INDEX ? undefined : o.outerIndex, full.cdoClass(g), full.isClass(g)];
      if (!isDeepStrictEqual(lazyOne, fullOne)) differ.push({ entry: `0x${g.toString(16)}`, lazy: lazyOne, full: fullOne });
    }
    expect(differ).toEqual([]);
    const names: Array<[number, string, string | undefined]> = [];
    for (let k = 0; k < parsed.names.length; k += 5) if (table.names.name(k) !== parsed.names[k]) names.push([k, table.names.name(k), parsed.names[k]]);
    expect(names).toEqual([]);
    expect(lazy.ref(0x1234n)).toBeUndefined();
    expect(lazy.ref(parsed.objects[0]!.globalIndex ^ (1n << 40n))).toBeUndefined();
    // A known class: /Script/CoreUObject.Object.
    const obj = parsed.objects.find((o) => lazy.ref(o.globalIndex)?.chain.map((c) => c.base).join('.') === 'Object' && lazy.ref(o.globalIndex)?.packageName === '/Script/CoreUObject');
    expect(obj && lazy.isClass(obj.globalIndex)).toBe(true);
  });

  it.each(['ue5.8-cue4parse/global/global.utoc', 'ue6.0-cue4parse/global/global.utoc'])('%s: isClass is exactly "some CDO names it as its class", on every entry', async (g) => {
    const parsed = await parsedChunk(g);
    const index = new ScriptObjectIndex(readScriptObjectTable(await scriptChunk(g)));
    const named = new Set(parsed.objects.map((o) => o.cdoClassIndex).filter((c) => c !== 0n && c !== NULL_OBJECT_INDEX));
    let classes = 0;
    const differ: string[] = [];
    for (const o of parsed.objects) {
      if (index.isClass(o.globalIndex) !== named.has(o.globalIndex)) differ.push(`entry 0x${o.globalIndex.toString(16)}: isClass ${index.isClass(o.globalIndex)}`);
      if (named.has(o.globalIndex)) classes++;
    }
    expect(differ).toEqual([]);
    expect(classes).toBeGreaterThan(6000);
  });

  it('rejects a cut or padded chunk with one located error', async () => {
    const bytes = await scriptChunk('ue5.8-cue4parse/global/global.utoc');
    expect(() => readScriptObjectTable(bytes.subarray(0, bytes.length - 5), { source: 'g' })).toThrow(IoStoreError);
    expect(() => readScriptObjectTable(bytes.subarray(0, 200), { source: 'g' })).toThrow(/g.*global name map/);
    const padded = new Uint8Array(bytes.length + 3);
    padded.set(bytes);
    expect(() => readScriptObjectTable(padded, { source: 'g' })).toThrow(/3 bytes left/);
  });
});
