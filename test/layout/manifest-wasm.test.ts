import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { ManifestChunkWriter } from '../../src/layout/manifest-bytes.js';
import { manifestChunkPieces } from '../../src/layout/manifest-wasm.js';
import { JsonBytes } from '../../src/util/json-bytes.js';
import { readToc, type IoStoreToc } from '../../src/toc/toc.js';
import { CORPUS_AES_KEY_HEX, corpusFiles, corpusPath, hasCorpus } from '../corpus.js';

const decoder = new TextDecoder();

interface Case {
  chunks: Int32Array;
  indent: string;
  renamed?: Map<number, string>;
  overriddenBy?: Map<number, string>;
}

/** The entries as the JavaScript writer makes them, each led by `,\n` and the indent (the first without the comma). */
function expected(toc: IoStoreToc, c: Case): string {
  const writer = new ManifestChunkWriter(toc, c.indent);
  const out = new JsonBytes(64);
  let text = '';
  c.chunks.forEach((i, k) => {
    out.clear();
    writer.write(out, i, c.renamed?.get(i), c.overriddenBy?.get(i));
    text += `${k === 0 ? '' : ','}\n${c.indent}${decoder.decode(out.view())}`;
  });
  return text;
}

/** The same entries through the WebAssembly writer (taken at any length), with their pieces' count. */
function written(toc: IoStoreToc, c: Case): { text: string; pieces: number } {
  const writer = new ManifestChunkWriter(toc, c.indent);
  const special = (c.renamed?.size ?? 0) + (c.overriddenBy?.size ?? 0) > 0 ? (i: number) => !!c.renamed?.has(i) || !!c.overriddenBy?.has(i) : undefined;
  const pieces = manifestChunkPieces(toc, c.chunks, c.indent, special, (k, out) => writer.write(out, c.chunks[k]!, c.renamed?.get(c.chunks[k]!), c.overriddenBy?.get(c.chunks[k]!)), 1);
  expect(pieces).toBeDefined();
  let text = '';
  let n = 0;
  // Each piece read before the next is pulled (they are overwritten).
  for (const p of pieces!) {
    text += decoder.decode(p);
    n++;
  }
  return { text, pieces: n };
}

function cases(toc: IoStoreToc): Case[] {
  const n = toc.chunkCount;
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const some = all.filter((i) => i % 3 !== 1 && i % 11 !== 4);
  const renamed = new Map<number, string>();
  const overriddenBy = new Map<number, string>();
  for (let i = 0; i < n; i++) {
    if (i % 7 === 3) renamed.set(i, `renamed "${i}" ✓/x (2).bin`);
    if (i % 5 === 0) overriddenBy.set(i, `Patch_${i}_P`);
  }
  return [
    { chunks: all, indent: '    ' },
    { chunks: some, indent: '', renamed, overriddenBy },
  ];
}

describe.skipIf(!hasCorpus)('manifestChunkPieces: a long manifest\'s chunk entries written by WebAssembly', () => {
  it('writes the bytes of ManifestChunkWriter.write for every corpus container, filtered, renamed and overridden', () => {
    let containers = 0;
    let entries = 0;
    for (const file of corpusFiles('.utoc')) {
      let toc: IoStoreToc;
      try {
        toc = readToc(new Uint8Array(readFileSync(corpusPath(file))), { source: file, aesKey: Buffer.from(CORPUS_AES_KEY_HEX, 'hex') });
      } catch {
        continue;
      }
      if (toc.chunkCount === 0) continue;
      containers++;
      for (const c of cases(toc)) {
        expect(written(toc, c).text, `${file}, ${c.chunks.length} entries at indent ${c.indent.length}${c.renamed ? ', renamed' : ''}`).toBe(expected(toc, c));
        entries += c.chunks.length;
      }
    }
    expect(containers).toBeGreaterThanOrEqual(15);
    expect(entries).toBeGreaterThan(10_000);
  });

  it('reads the TOC in place where unpack reads the .utoc (a shared module memory) and writes the same bytes', async () => {
    const { readTocBytes } = await import('../../src/toc/read-file.js');
    const { sharedModuleMemory } = await import('../../src/util/wasm.js');
    for (const file of ['ue5-wayoftheninja/WayOfTheNinja-Windows.utoc', 'ue5.1-patchtest/jh-patchtest-chunk1001/pakchunk1001-Windows.utoc']) {
      const bytes = await readTocBytes(corpusPath(file), { shared: true });
      expect(sharedModuleMemory(bytes)).toBeDefined();
      const toc = readToc(bytes, { source: file });
      for (const c of cases(toc)) expect(written(toc, c).text).toBe(expected(toc, c));
      // A writer already using the memory's room: a second one at the same time works from copies.
      const c = cases(toc)[0]!;
      const writer = new ManifestChunkWriter(toc, c.indent);
      const one = manifestChunkPieces(toc, c.chunks, c.indent, undefined, (k, out) => writer.write(out, c.chunks[k]!, undefined, undefined), 1)![Symbol.iterator]();
      const head = decoder.decode(one.next().value as Uint8Array);
      expect(written(toc, c).text.startsWith(head)).toBe(true);
      one.return?.();
    }
  });
});

describe('manifestChunkPieces: names, pieces and fallbacks', () => {
  it('writes names that need escaping, UTF-16 names, unnamed chunks and raw blocks across many pieces as JavaScript does', async () => {
    const { buildContainer } = await import('../../src/pack/container-builder.js');
    const { encodeChunkId } = await import('../../src/toc/chunk-id.js');
    // Random names: printable ASCII, quotes, DEL, Latin-1 and (some) beyond it; `q`, `Q`, `w` and `W` become a
    // backslash and control characters in the stored table below (pack refuses them; a container may hold them).
    let seed = 0x2f6e2b1;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) / (1 << 24);
    const alphabet = ['a', 'B', '0', ' ', '"', 'q', 'Q', 'w', 'W', '\x7f', '\x80', 'é', 'ÿ', '.', '-', '(', '$'];
    const name = (i: number) => {
      let s = '';
      const len = 1 + Math.floor(random() * 40);
      for (let k = 0; k < len; k++) s += random() < 0.7 ? 'abcdefghXYZ_0123456789'[Math.floor(random() * 22)] : alphabet[Math.floor(random() * alphabet.length)];
      return `${i % 3 === 0 ? 'D "x"/ä' : 'Dir'}${i % 17}/${s}${i % 97 === 5 ? '日本' : ''}.bin`;
    };
    const chunks = Array.from({ length: 2000 }, (_, i) => ({
      id: encodeChunkId({ id: BigInt(i * 7919 + 1), index: i % 3, pad: 0, type: 1 + (i % 12) }, 'UE5'),
      data: new Uint8Array(1 + (i % 5) * 700).fill(i & 0xff),
      path: i % 13 === 6 ? (undefined as unknown as string) : name(i),
    }));
    // Full blocks "compressed" (any smaller bytes will do: nothing decodes them), a chunk's last, short one stored raw.
    const compressor = { name: 'Zlib', compress: (b: Uint8Array) => (b.length === 1024 ? b.subarray(0, 100) : b) };
    // Both meta forms: a 20-byte hash (TOC v8 on) and a 32-byte field (before).
    for (const version of [8, 7]) {
      const { utoc } = await buildContainer(version === 8 ? chunks : chunks.slice(0, 600), { name: 'Names', mountPoint: '../../../Game "Mod"/', compressor, version, blockSize: 1024 });
      checkBuilt(readToc(utoc));
    }
  });

  it('is not used for short lists (their entries are strings: WASM_ENTRIES_MIN)', async () => {
    const { WASM_ENTRIES_MIN } = await import('../../src/layout/manifest-wasm.js');
    const toc = { chunkCount: 10, blockSize: 65536 } as IoStoreToc;
    expect(manifestChunkPieces(toc, new Int32Array(WASM_ENTRIES_MIN - 1), ' ', undefined, () => {})).toBeUndefined();
  });

  it.skipIf(!hasCorpus)('writes a manifest of a few thousand entries by default, as JavaScript does (issue 28ak: the strings cost a short unpack ~2x)', () => {
    // 5,370 chunks: as the side-by-side bench's 3,000, a list the strings wrote before (up to 8,192).
    const file = 'ue5-wayoftheninja/WayOfTheNinja-Windows.utoc';
    const toc = readToc(new Uint8Array(readFileSync(corpusPath(file))), { source: file });
    expect(toc.chunkCount).toBe(5370);
    const c: Case = { chunks: Int32Array.from({ length: toc.chunkCount }, (_, i) => i), indent: '      ' };
    const writer = new ManifestChunkWriter(toc, c.indent);
    const pieces = manifestChunkPieces(toc, c.chunks, c.indent, undefined, (k, out) => writer.write(out, c.chunks[k]!, undefined, undefined));
    expect(pieces).toBeDefined();
    let text = '';
    for (const p of pieces!) text += decoder.decode(p);
    expect(text).toBe(expected(toc, c));
  });
});

function checkBuilt(toc: IoStoreToc): void {
  const stored = toc.chunkPaths!.storedNames!;
  const swap: Record<number, number> = { 0x71: 0x5c, 0x51: 0x01, 0x77: 0x0a, 0x57: 0x1f };
  for (let b = 0; b < stored.length; b++) stored[b] = swap[stored[b]!] ?? stored[b]!;
    let rawBlocks = 0;
    for (let i = 0; i < toc.chunkCount; i++) {
      const first = toc.chunkFirstBlock(i);
      let raw = false;
      let compressed = false;
      for (let b = 0; b < toc.chunkBlockCount(i); b++) (toc.blocks.method(first + b) === 0 ? (raw = true) : (compressed = true));
      if (raw && compressed) rawBlocks++;
    }
    for (const c of cases(toc)) {
      const { text, pieces } = written(toc, c);
      expect(text).toBe(expected(toc, c));
      // ~0.8 MB: pieces of 256 KiB.
      if (c.chunks.length === 2000) expect(pieces).toBeGreaterThan(2);
    }
    expect(rawBlocks).toBeGreaterThan(0);
}

describe.skipIf(!hasCorpus)('manifestChunkPieces: the set-up of a short unpack\'s manifest (issue 28ax)', () => {
  const file = 'ue5-wayoftheninja/WayOfTheNinja-Windows.utoc';

  it('encodes its ~540 table texts (fixed texts, types, methods, folders) by one call, not one each', () => {
    const toc = readToc(new Uint8Array(readFileSync(corpusPath(file))), { source: file });
    const c = cases(toc)[0]!;
    // The JavaScript writer (for the entries the module leaves) encodes its own texts: made before counting.
    const writer = new ManifestChunkWriter(toc, c.indent);
    const encode = vi.spyOn(TextEncoder.prototype, 'encode');
    try {
      const pieces = manifestChunkPieces(toc, c.chunks, c.indent, undefined, (k, out) => writer.write(out, c.chunks[k]!, undefined, undefined), 1)!;
      expect(pieces[Symbol.iterator]().next().done).toBe(false);
      expect(encode.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      encode.mockRestore();
    }
  });

  it('writes chunk types past the generation\'s names (Unknown<n>, only the types the TOC holds are tabled) as JavaScript does', () => {
    const toc = readToc(new Uint8Array(readFileSync(corpusPath(file))), { source: file });
    for (let i = 0; i < toc.chunkCount; i += 5) toc.chunkIds[i * 12 + 11] = 200 + (i % 50);
    for (const c of cases(toc)) expect(written(toc, c).text).toBe(expected(toc, c));
  });
});
