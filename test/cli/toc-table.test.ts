import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chunkTable, rowColumns } from '../../src/cli/commands/list.js';
import { writeTocTable } from '../../src/cli/toc-table.js';
import { listChunks, selectChunks, type ChunkQuery } from '../../src/toc/listing.js';
import { readToc, type IoStoreToc } from '../../src/toc/toc.js';
import { corpusPath, hasCorpus } from '../corpus.js';

const QUERIES: ChunkQuery[] = [{}, { sort: 'size' }, { sort: 'path' }, { sort: 'type' }, { filter: '**/*.ubulk' }, { type: 'ShaderCode' }];

/** The table written from the TOC's bytes, in its parts. */
function bytesTable(toc: IoStoreToc, q: ChunkQuery): { text: string; parts: number } {
  const parts: string[] = [];
  writeTocTable(toc, selectChunks(toc, q), (t) => parts.push(t));
  return { text: parts.join(''), parts: parts.length };
}

const open = (rel: string, edit?: (b: Buffer) => void) => {
  const bytes = Buffer.from(readFileSync(corpusPath(rel)));
  edit?.(bytes);
  return readToc(new Uint8Array(bytes), { source: rel });
};

describe('the chunk table of list, written from the TOC as bytes', () => {
  it.skipIf(!hasCorpus)('is the text of the string table for every sort, a filter and a type (5,370 chunks; several parts)', () => {
    for (const f of ['ue5-wayoftheninja/WayOfTheNinja-Windows.utoc', 'ue5.1-templeofgiants/global.utoc']) {
      const toc = open(f);
      for (const q of QUERIES) {
        const { text, parts } = bytesTable(toc, q);
        expect(text, `${f} ${JSON.stringify(q)}`).toBe(chunkTable(rowColumns(listChunks(toc, q))));
        if (q.type === undefined && q.filter === undefined && toc.chunkCount > 1000) expect(parts).toBeGreaterThan(1);
      }
    }
  });

  it.skipIf(!hasCorpus)('shows names with DEL, C1 and Latin-1 bytes as the string table does (escaped, or UTF-8)', () => {
    const rel = 'ue5.8-cue4parse/uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc';
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
    });
    const paths = Array.from({ length: toc.chunkCount }, (_, i) => toc.chunkPath(i) ?? '');
    expect(paths.some((p) => p.includes('\x9b'))).toBe(true);
    expect(paths.some((p) => p.includes('é'))).toBe(true);
    for (const q of QUERIES) expect(bytesTable(toc, q).text).toBe(chunkTable(rowColumns(listChunks(toc, q))));
    const text = bytesTable(toc, {}).text;
    expect(text).toContain('DT\\u009bAllProperties.uasset');
    expect(text).toContain('éIDI_Fixture.uasset');
    expect(text).toContain('SW_\\u007format_Opus.ubulk');
  });
});
