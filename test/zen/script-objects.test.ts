import { describe, expect, it } from 'vitest';
import {
  nameHashMismatches,
  NULL_OBJECT_INDEX,
  objectIndexKind,
  parseLoaderGlobalNameHashes,
  parseLoaderGlobalNames,
  parseLoaderInitialLoadMeta,
  parseScriptObjects,
  scriptImportIndex,
  scriptObjectPaths,
  serializeLoaderGlobalNameHashes,
  serializeLoaderGlobalNames,
  serializeLoaderInitialLoadMeta,
  serializeScriptObjects,
} from '../../src/zen/index.js';
import { chunksOfType, rawContainers, read } from './helpers.js';

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

describe('UE5 ScriptObjects chunks of the global containers', () => {
  const globals = rawContainers().filter((c) => chunksOfType(c, 'ScriptObjects').length > 0);

  it('are the five global containers (TOC v5, v8, v10)', () => {
    expect(globals.length).toBe(5);
    expect(new Set(globals.map((g) => g.toc.version))).toEqual(new Set([5, 8, 10]));
  });

  it.each(globals.map((g) => [g.rel, g] as const))('%s', (_rel, g) => {
    const [i] = chunksOfType(g, 'ScriptObjects');
    const bytes = g.chunk(i!);
    const s = parseScriptObjects(bytes, { source: g.rel });
    expect(s.objects.length).toBeGreaterThan(20000);
    // Name batch + u32 count + 32 bytes per entry tile the chunk exactly (the parser rejects leftovers).
    expect(same(serializeScriptObjects(s), bytes)).toBe(true);
    // Name hashes (every 4th name; all of them are checked for the UE 4.27 global names and every zen package).
    const sample = (a: readonly unknown[]) => a.filter((_, k) => k % 4 === 0);
    expect(nameHashMismatches({ names: sample(s.names) as string[], hashes: sample(s.nameHashes) as bigint[] })).toEqual([]);
    // Names are global (type 2); indices are script imports or null; outers resolve.
    expect(s.objects.every((o) => o.objectName.type === 2 && o.objectName.index < s.names.length)).toBe(true);
    expect(s.objects.every((o) => objectIndexKind(o.globalIndex) === 'ScriptImport')).toBe(true);
    const ids = new Set(s.objects.map((o) => o.globalIndex));
    expect(s.objects.every((o) => o.outerIndex === NULL_OBJECT_INDEX || ids.has(o.outerIndex))).toBe(true);
    expect(s.objects.every((o) => o.cdoClassIndex === NULL_OBJECT_INDEX || ids.has(o.cdoClassIndex))).toBe(true);
    // GlobalIndex = ScriptImport hash of the object path (checked on a sample: every 16th entry).
    const paths = scriptObjectPaths(s.names, s.objects);
    const wrong: number[] = [];
    for (let k = 0; k < s.objects.length; k += 16) if (scriptImportIndex(paths[k]!) !== s.objects[k]!.globalIndex) wrong.push(k);
    expect(wrong).toEqual([]);
  });
});

describe('UE 4.27 global chunks', () => {
  const namesBytes = read('zen-assets/UE4.27/LoaderGlobalNames_1.bin');
  const hashesBytes = read('zen-assets/UE4.27/LoaderGlobalNameHashes_1.bin');
  const metaBytes = read('zen-assets/UE4.27/LoaderInitialLoadMeta_1.bin');

  it('LoaderGlobalNames and LoaderGlobalNameHashes: 21 550 names whose hashes match', () => {
    const names = parseLoaderGlobalNames(namesBytes);
    const hashes = parseLoaderGlobalNameHashes(hashesBytes);
    expect(names.length).toBe(21550);
    expect(hashes.length).toBe(21550);
    expect(nameHashMismatches({ names, hashes })).toEqual([]);
    expect(same(serializeLoaderGlobalNames(names), namesBytes)).toBe(true);
    expect(same(serializeLoaderGlobalNameHashes(hashes), hashesBytes)).toBe(true);
  });

  it('LoaderInitialLoadMeta: 23 393 script objects, indices are the hashes of their paths', () => {
    const names = parseLoaderGlobalNames(namesBytes);
    const meta = parseLoaderInitialLoadMeta(metaBytes);
    expect(meta.length).toBe(23393);
    expect(same(serializeLoaderInitialLoadMeta(meta), metaBytes)).toBe(true);
    const paths = scriptObjectPaths(names, meta);
    expect(paths.every((p) => p !== undefined)).toBe(true);
    const wrong: number[] = [];
    for (let k = 0; k < meta.length; k += 16) if (scriptImportIndex(paths[k]!) !== meta[k]!.globalIndex) wrong.push(k);
    expect(wrong).toEqual([]);
    expect(scriptImportIndex('/Script/ACLPlugin')).toBe(0x793f948bdadd7e9en);
  });
});
