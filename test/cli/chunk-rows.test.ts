import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openForRows, writeChunkRows, type RowFormat } from '../../src/cli/chunk-rows.js';
import { csvCell, renderCsv, renderJson, renderTable } from '../../src/cli/format.js';
import { escapeControl } from '../../src/util/quote.js';
import { listChunks, selectChunks, type ChunkQuery } from '../../src/toc/listing.js';
import { readToc, type IoStoreToc } from '../../src/toc/toc.js';
import { arenaOf, tocBytesInModule } from '../../src/toc/toc-scan.js';
import { chunkTypeName } from '../../src/toc/chunk-id.js';
import { corpusFiles, corpusPath, hasCorpus } from '../corpus.js';
import { openToc } from '../../src/toc/read-file.js';
import { countCalls } from '../count-calls.js';
import { tempDir } from '../tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin', 'iostore.js');
const demo = join(root, 'samples', 'demo', 'DemoMod-Windows.utoc');

const QUERIES: ChunkQuery[] = [{}, { sort: 'size' }, { sort: 'path' }, { sort: 'type' }, { filter: '**/*.ubulk' }, { type: 'ShaderCode' }];
const COLUMNS = ['index', 'id', 'type', 'path', 'size', 'storedSize', 'blocks', 'hash'] as const;

/** The rows written by the WebAssembly module, in their parts. */
function written(toc: IoStoreToc, q: ChunkQuery, format: RowFormat): { text: string; parts: number } {
  const parts: Buffer[] = [];
  writeChunkRows(toc, selectChunks(toc, q), format, (b) => parts.push(Buffer.from(b)), 'Box');
  return { text: Buffer.concat(parts).toString('utf8'), parts: parts.length };
}

/** The same text made of listChunks's rows by the string forms: renderTable, renderCsv and renderJson. */
function expected(toc: IoStoreToc, q: ChunkQuery, format: RowFormat): string {
  const rows = listChunks(toc, q);
  if (format === 'table') {
    const cells = rows.map((r) => [String(r.index), r.id, r.type, r.path, String(r.size), String(r.storedSize), String(r.blocks), r.hash]);
    return renderTable(['#', 'chunk id', 'type', 'path', 'size', 'stored', 'blocks', 'hash'], cells, ['right', 'left', 'left', 'left', 'right', 'right', 'right', 'left']);
  }
  if (format === 'csv') return renderCsv([...COLUMNS], rows.map((r) => COLUMNS.map((c) => r[c]))).slice(COLUMNS.join(',').length + 1);
  const json = renderJson({ chunks: rows.map((r) => ({ ...r, container: 'Box' })) });
  return rows.length === 0 ? '' : json.slice('{\n  "chunks": [\n'.length, -'  ]\n}\n'.length);
}

/** A corpus TOC read from bytes on the heap, or (`module`) from bytes in WebAssembly memory, as readTocBytes reads a file. */
const open = (rel: string, edit?: (b: Buffer) => void, where: 'heap' | 'module' = 'heap') => {
  const bytes = Buffer.from(readFileSync(corpusPath(rel)));
  edit?.(bytes);
  const into = where === 'module' ? tocBytesInModule(bytes.length)! : new Uint8Array(bytes.length);
  into.set(bytes);
  return readToc(into, { source: rel });
};
const WHERE = ['heap', 'module'] as const;

const FORMATS: RowFormat[] = ['table', 'csv', 'json'];

describe('the chunk rows of list (table, CSV, JSON), written from the TOC by WebAssembly', () => {
  it.skipIf(!hasCorpus)('are the text of the string forms for every sort, a filter and a type (5,370 chunks; several parts)', () => {
    const runs = [['ue5-wayoftheninja/WayOfTheNinja-Windows.utoc', 'heap'], ['ue5.1-templeofgiants/global.utoc', 'heap'], ['ue5-wayoftheninja/WayOfTheNinja-Windows.utoc', 'module']] as const;
    // The string forms' text is made once per file (the costly side), for the TOC read both ways.
    const want = new Map<string, string>();
    for (const [f, where] of runs) {
      const toc = open(f, undefined, where);
      for (const format of FORMATS) {
        // Read into module memory: the orders that place rows differently (the sorts by text are slow to select).
        for (const q of where === 'heap' ? QUERIES : QUERIES.slice(0, 2).concat(QUERIES.slice(4))) {
          const { text, parts } = written(toc, q, format);
          const key = `${f} ${format} ${JSON.stringify(q)}`;
          if (!want.has(key)) want.set(key, expected(toc, q, format));
          expect(text, `${key} (${where})`).toBe(want.get(key));
          if (q.type === undefined && q.filter === undefined && toc.chunkCount > 1000) expect(parts).toBeGreaterThan(1);
        }
      }
    }
  });

  it.skipIf(!hasCorpus)('list every chunk in TOC order without a table of rows (null order) as with one, its slow path cells included', () => {
    // The usual listing (src/cli/commands/list.ts) gives no order: the module counts the rows itself.
    const files = ['ue5-wayoftheninja/WayOfTheNinja-Windows.utoc', 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc'];
    for (const f of files) {
      for (const where of WHERE) {
        const toc = open(f, undefined, where);
        for (const format of FORMATS) {
          const parts: Buffer[] = [];
          writeChunkRows(toc, null, format, (b) => parts.push(Buffer.from(b)), 'Box');
          expect(Buffer.concat(parts).toString('utf8'), `${f} ${format} (${where})`).toBe(written(toc, {}, format).text);
        }
      }
    }
  });

  it.skipIf(!hasCorpus)('show names with DEL, C1, Latin-1 bytes, quotes and commas as the string forms do (escaped, quoted, or UTF-8)', () => {
    const rel = 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc';
    for (const where of WHERE) namesShownAsStringFormsDo(rel, where);
  });

  it.skipIf(!hasCorpus)('make the folders\' path cells in WebAssembly from the walk\'s tree: no folder\'s text made in JavaScript', () => {
    const files = ['ue5-wayoftheninja/WayOfTheNinja-Windows.utoc', 'ue5.1-templeofgiants/Colliderproject-Windows.utoc', 'ue5.8-cue4parse/zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc'];
    for (const f of files) {
      for (const where of WHERE) {
        const toc = open(f, undefined, where);
        const paths = toc.chunkPaths!;
        expect(paths.folderCount, f).toBeGreaterThan(1);
        // Per folder, main's build made its text (folderPath), checked it and made it bytes here.
        const counted = countCalls(paths, ['folderPath', 'get']);
        for (const format of FORMATS) writeChunkRows(toc, null, format, () => {}, 'Box');
        expect(counted.calls, `${f} (${where})`).toBe(0);
      }
    }
  });

  it.skipIf(!hasCorpus)('show folders (and the folders below them) and a mount point with Latin-1 bytes, quotes and commas as the string forms do', () => {
    const rel = 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc';
    const edited = (edits: Array<[string, number, number]>, where: (typeof WHERE)[number]) =>
      open(rel, (b) => {
        for (const [name, k, v] of edits) {
          const at = b.indexOf(Buffer.from(name, 'latin1'));
          expect(at, name).toBeGreaterThan(0);
          b[at + k] = v;
        }
      }, where);
    for (const where of WHERE) {
      // Folder names are FStrings of their own ('Maps' has 'WorldPartition/_Generated_' below it).
      const toc = edited([['\x05\0\0\0Maps\0', 5, 0x2c], ['\x07\0\0\0Curves\0', 4, 0xe9], ['\x06\0\0\0Audio\0', 6, 0x22]], where);
      const paths = Array.from({ length: toc.chunkCount }, (_, i) => toc.chunkPath(i) ?? '');
      expect(paths.some((p) => p.includes('/M,ps/WorldPartition/_Generated_/'))).toBe(true);
      expect(paths.some((p) => p.includes('/éurves/'))).toBe(true);
      expect(paths.some((p) => p.includes('/Au"io/'))).toBe(true);
      for (const format of FORMATS) for (const q of QUERIES) expect(written(toc, q, format).text, `${format} ${JSON.stringify(q)} (${where})`).toBe(expected(toc, q, format));
      // The mount point's text starts every path: one character past ASCII makes every folder's cell JavaScript's.
      const mounted = edited([['../../../CUE4ParseFixtures/Content/', 12, 0xe9]], where);
      expect(mounted.chunkPath(1)).toMatch(/^CUEéParseFixtures\//);
      for (const format of FORMATS) expect(written(mounted, {}, format).text, `${format} (${where})`).toBe(expected(mounted, {}, format));
    }
  });

  it.skipIf(!hasCorpus)('read a .utoc in WebAssembly memory where it lies: a listing takes < 100 bytes of that memory per chunk past the TOC bytes', () => {
    const rel = 'ue5-wayoftheninja/WayOfTheNinja-Windows.utoc';
    const size = readFileSync(corpusPath(rel)).length;
    const toc = open(rel, undefined, 'module');
    const arena = arenaOf(toc.chunkIds)!;
    expect(arenaOf(toc.chunkOffsets)).toBe(arena);
    expect(arenaOf(toc.directoryIndex!.files)).toBe(arena);
    void toc.chunkPaths;
    const read = arena.highest - arena.start - size;
    const mark = arena.mark;
    expect(written(toc, {}, 'table').parts).toBeGreaterThan(1);
    // The listing took its room here (its tables, not copies of the TOC's arrays), and gave it back.
    expect(arena.mark).toBe(mark);
    const listed = arena.highest - arena.start - size;
    expect(listed).toBeGreaterThan(read);
    // 5,370 chunks: 42 bytes a chunk after reading (the chunk spans, the index's entries and the walk's scratch), 70
    // after listing (its order, folder and name tables, cells, and a 64 KiB part); copies of the ids, spans, metas,
    // block table and names would add > 80.
    expect(listed / toc.chunkCount).toBeLessThan(100);
  });

  it.skipIf(!hasCorpus)('are the same where the memory the .utoc was read into has little room left (each step copies as without it)', () => {
    const rel = 'ue5.1-templeofgiants/Colliderproject-Windows.utoc';
    const bytes = readFileSync(corpusPath(rel));
    const want = expected(readToc(new Uint8Array(bytes), { source: rel }), {}, 'table');
    for (const left of [0, 4096, 30_000, 60_000, bytes.length / 2, bytes.length]) {
      const into = tocBytesInModule(bytes.length)!;
      const arena = arenaOf(into)!;
      arena.take(arena.memory.buffer.byteLength - arena.mark - left, true);
      into.set(bytes);
      const toc = readToc(into, { source: rel });
      expect(written(toc, {}, 'table').text, `${left} bytes left`).toBe(want);
      expect(toc.totals().storedSize).toBeGreaterThan(0);
    }
  });
});

describe('the chunk rows\' type cells', () => {
  it('are the type names as they are (JSON: quoted): every name, of both generations and unknown types, is a plain identifier', () => {
    for (const gen of ['UE4', 'UE5'] as const) {
      for (let t = 0; t < 256; t++) {
        const name = chunkTypeName(t, gen);
        expect(name).toMatch(/^[A-Za-z0-9]+$/);
        expect([escapeControl(name), csvCell(name), JSON.stringify(name)]).toEqual([name, name, `"${name}"`]);
      }
    }
  });
});

describe('the chunk rows\' numbers and hex (written 2 digits and 4 bytes a step)', () => {
  it('write every digit count, sizes past 2^32, every byte value and a 32-byte hash field as the string forms do', () => {
    // A TOC of five chunks without a directory index (no paths), 2 GiB blocks: sizes of 1 to 12 digits, past 2^32
    // and 2^40; ids and hashes holding every byte value; a hash field whose last 12 bytes are used (shown whole).
    const blockSize = 2 ** 31;
    const lengths = [0, 7, 4294967295, 4294967296 + 5, 99_999_999_999];
    const offsets = [0, 10, 2 ** 32 + 12_345, 2 ** 33, 2 ** 40 + 3];
    const n = lengths.length;
    const firstBlock = offsets.map((o) => Math.floor(o / blockSize));
    const blockCount = offsets.map((o, i) => (lengths[i] === 0 ? 0 : Math.ceil((o + lengths[i]!) / blockSize) - firstBlock[i]!));
    const blocks = new Uint8Array(12 * (Math.max(...firstBlock.map((f, i) => f + blockCount[i]!)) + 1));
    // Each block's stored size (3 bytes at +5): its index + 0xabcde.
    for (let b = 0; b < blocks.length / 12; b++) blocks.set([(b + 0xabcde) & 0xff, ((b + 0xabcde) >> 8) & 0xff, (b + 0xabcde) >> 16], 12 * b + 5);
    const ids = new Uint8Array(12 * n).map((_, k) => (k * 37 + 11) & 0xff);
    ids[11] = 2;
    const metaSize = 33;
    const metas = new Uint8Array(metaSize * n).map((_, k) => (k * 53 + 201) & 0xff);
    // Chunk 1's field: 20 bytes of hash, the last 12 zero (shown as 20 bytes); the others use all 32.
    metas.fill(0, metaSize + 20, metaSize + 32);
    const toc = {
      chunkCount: n, chunkIds: ids, chunkOffsets: new Float64Array(offsets), chunkLengths: new Float64Array(lengths), blocks: { bytes: blocks },
      blockSize, metas, metaSize, metaHashSize: 32, generation: 'UE5', chunkPaths: undefined, chunkPath: () => undefined,
    } as unknown as IoStoreToc;
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    const want = lengths.map((len, i) => {
      let stored = 0;
      for (let b = firstBlock[i]!; b < firstBlock[i]! + blockCount[i]!; b++) stored += b + 0xabcde;
      const hash = metas.subarray(metaSize * i, metaSize * i + (i === 1 ? 20 : 32));
      return `${i},${hex(ids.subarray(12 * i, 12 * i + 12))},${chunkTypeName(ids[12 * i + 11]!, 'UE5')},,${len},${stored},${blockCount[i]},${hex(hash)}\n`;
    });
    const parts: Buffer[] = [];
    writeChunkRows(toc, [0, 1, 2, 3, 4], 'csv', (b) => parts.push(Buffer.from(b)));
    expect(Buffer.concat(parts).toString('latin1')).toBe(want.join(''));
    expect(blockCount[4]).toBeGreaterThan(40);
    // The table: numbers of 9 to 12 digits right-aligned (two 8-digit halves), each order of the rows.
    for (const order of [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 4]]) {
      const table: Buffer[] = [];
      writeChunkRows(toc, order, 'table', (b) => table.push(Buffer.from(b)));
      const cells = order.map((i) => want[i]!.slice(0, -1).split(','));
      const text = renderTable(['#', 'chunk id', 'type', 'path', 'size', 'stored', 'blocks', 'hash'], cells, ['right', 'left', 'left', 'left', 'right', 'right', 'right', 'left']);
      expect(Buffer.concat(table).toString('latin1'), JSON.stringify(order)).toBe(text);
    }
  });
});

function namesShownAsStringFormsDo(rel: string, where: (typeof WHERE)[number]): void {
  {
    const toc = open(rel, (b) => {
      // Names in the directory index are ANSI (Latin-1) FStrings: one byte of a few becomes something else.
      const put = (name: string, k: number, v: number) => {
        const at = b.indexOf(Buffer.from(`${name}\0`, 'latin1'));
        expect(at, name).toBeGreaterThan(0);
        b[at + k] = v;
      };
      put('DT_AllProperties.uasset', 2, 0x9b);
      put('MIDI_Fixture.uasset', 0, 0xe9);
      put('SW_Format_Opus.ubulk', 3, 0x7f);
      put('Curve_Float.uasset', 5, 0x2c);
      put('Curve_Vector.uasset', 5, 0x22);
      // Past the first 8 bytes (the module checks names 8 bytes a step, then the rest a byte a step).
      put('BP_ComponentsChild.uasset', 9, 0x22);
      put('CT_SimpleOverrides.uasset', 21, 0x7f);
      put('BuildData_Fixture.uasset', 13, 0x2c);
    }, where);
    const paths = Array.from({ length: toc.chunkCount }, (_, i) => toc.chunkPath(i) ?? '');
    expect(paths.some((p) => p.includes('\x9b'))).toBe(true);
    expect(paths.some((p) => p.includes('é'))).toBe(true);
    for (const format of FORMATS) for (const q of QUERIES) expect(written(toc, q, format).text, `${format} ${JSON.stringify(q)}`).toBe(expected(toc, q, format));
    const table = written(toc, {}, 'table').text;
    expect(table).toContain('DT\\u009bAllProperties.uasset');
    expect(table).toContain('éIDI_Fixture.uasset');
    expect(table).toContain('SW_\\u007format_Opus.ubulk');
    expect(table).toContain('CT_SimpleOverrides.ua\\u007fset');
    const csv = written(toc, {}, 'csv').text;
    expect(csv).toContain(',"CUE4ParseFixtures/Content/Fixtures/Curves/Curve,Float.uasset",');
    expect(csv).toContain('Curve,Float.uasset"');
    expect(csv).toContain('Curve""Vector.uasset"');
    expect(csv).toContain('BP_Compon""ntsChild.uasset"');
    expect(csv).toContain('BuildData_Fix,ure.uasset"');
    expect(written(toc, {}, 'json').text).toContain('Curve\\"Vector.uasset"');
  }
}

describe('the chunk rows\' writers as WebAssembly (what Liftoff, the compiler of a short list, runs per row)', () => {
  it('keep their output cursor in a local and write fixed text and short cells by 16-byte stores, not a copy each', async () => {
    // Binaryen (the AssemblyScript compiler's optimizer) reads the built module back. Under Liftoff a global is a
    // load and a store through the instance at each use, and each memory.copy a call out to C: main's build set the
    // cursor global per cell (12-16 stores a writer) and the JSON rows made 12 copies of their fixed text.
    const { default: binaryen } = await import('binaryen');
    const { TOC_LISTING_WASM_BASE64 } = await import('../../src/cli/toc-listing-wasm.generated.js');
    const m = binaryen.readBinary(Buffer.from(TOC_LISTING_WASM_BASE64, 'base64'));
    m.setFeatures(binaryen.Features.All);
    try {
      for (const name of ['writeTable', 'writeCsv', 'writeJson']) {
        const f = m.getFunction(binaryen.getExportInfo(m.getExport(name)).value);
        const body = binaryen.emitText(binaryen.getFunctionInfo(f).body);
        const count = (op: string) => body.split(op).length - 1;
        // The block span's first block (blockSpan) and the bytes written, once per row and per call.
        expect(count('global.set'), name).toBeLessThanOrEqual(2);
        // Only where 16-byte reads would pass the memory's end (two call sites: a cell and a long cell).
        expect(count('memory.copy'), name).toBeLessThanOrEqual(2);
      }
    } finally {
      m.dispose();
    }
  });
});

describe('the names\' byte checks as WebAssembly (the TOC scan and the rows\' paths, under Liftoff in a short list)', () => {
  it('check a name 16 bytes a step with SIMD, the last bytes masked, not 8 a step and the rest a byte a step', async () => {
    // Binaryen reads the built modules back. Under Liftoff an 8-byte step of four borrow tests and the last 1-7
    // bytes one at a time were ~270 instructions a name of the bench's 3,000 (the TOC's names) and ~245 a row (the
    // rows' plain paths): main's build had no SIMD in either check, and none in the TOC loops' own module.
    const { default: binaryen } = await import('binaryen');
    const { TOC_LISTING_WASM_BASE64 } = await import('../../src/cli/toc-listing-wasm.generated.js');
    const { TOC_SCAN_WASM_BASE64 } = await import('../../src/toc/toc-scan-wasm.generated.js');
    for (const [what, base64] of [['toc-listing', TOC_LISTING_WASM_BASE64], ['toc', TOC_SCAN_WASM_BASE64]] as const) {
      const m = binaryen.readBinary(Buffer.from(base64, 'base64'));
      m.setFeatures(binaryen.Features.All);
      try {
        const text = (index: number | string) => binaryen.emitText(binaryen.getFunctionInfo(typeof index === 'string' ? m.getFunction(index) : m.getFunctionByIndex(index)).body);
        const names = text(binaryen.getExportInfo(m.getExport('names')).value);
        expect(names, what).toContain('v128.any_true');
        expect(names, what).toContain('i8x16.lt_u');
        if (what === 'toc-listing') {
          // The rows' plain-path check (plainLength: printable ASCII but '"', ',' and '\\'), one of the module's functions.
          const bodies = Array.from({ length: m.getNumFunctions() }, (_, k) => text(k));
          expect(bodies.some((b) => b.includes('i8x16.gt_u') && b.includes('v128.any_true'))).toBe(true);
        }
      } finally {
        m.dispose();
      }
    }
  });
});

describe('a listing of a .utoc read into a module memory compiles one WebAssembly module', () => {
  it('list scans the TOC and writes its rows with one instance of one module; other reads keep the TOC loops\' own', () => {
    // Counted in a child process: its first WebAssembly modules are the ones the run makes (main's build: the TOC
    // loops' module, then the rows writer's, each compiled and instantiated).
    const preload = join(tempDir('iostore-one-module-'), 'count.cjs');
    writeFileSync(
      preload,
      `const M = WebAssembly.Module, I = WebAssembly.Instance; let m = 0, i = 0;
       WebAssembly.Module = function (b) { m++; return new M(b); };
       WebAssembly.Instance = function (a, b) { i++; return new I(a, b); };
       process.on('exit', () => require('node:fs').writeSync(2, 'wasm ' + m + ' ' + i + '\\n'));`,
    );
    const run = (...args: string[]) => spawnSync(process.execPath, ['-r', preload, bin, ...args], { encoding: 'utf8' });
    for (const args of [['list', demo], ['list', demo, '--json'], ['list', demo, '--csv']]) {
      const r = run(...args);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr, args.join(' ')).toContain('wasm 1 1\n');
    }
    const info = run('info', demo);
    expect(info.status, info.stderr).toBe(0);
    expect(info.stderr).toContain('wasm 1 1\n');
  });
});

describe('a listing of a TOC opened for its rows (one module scans and lists it)', () => {
  it.skipIf(!hasCorpus)('every corpus .utoc: the arena\'s own instance writes the rows, the text of the string forms', async () => {
    let listed = 0;
    for (const rel of corpusFiles('.utoc')) {
      let toc: IoStoreToc;
      try {
        toc = await openForRows(() => openToc(corpusPath(rel)));
      } catch {
        continue; // encrypted without its key, or a test vector that is not a TOC
      }
      // The arena's instance is the toc-listing module's (main's build: the TOC loops' own, and a second module for the rows).
      expect(typeof (arenaOf(toc.chunkIds)?.scan as { writeTable?: unknown } | undefined)?.writeTable, rel).toBe('function');
      for (const format of ['table', 'json'] as const) {
        const parts: Buffer[] = [];
        writeChunkRows(toc, null, format, (b) => parts.push(Buffer.from(b)), 'Box');
        expect(Buffer.concat(parts).toString('utf8'), `${rel} ${format}`).toBe(expected(toc, {}, format));
      }
      listed++;
    }
    expect(listed).toBeGreaterThanOrEqual(15);
  }, 60_000);
});
