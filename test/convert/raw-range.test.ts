import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ContainerReader } from '../../src/cas/container-reader.js';
import { RawRangeReader } from '../../src/convert/raw-range.js';
import { corpusPath, hasCorpus } from '../corpus.js';

function utocIn(dir: string): string {
  const name = readdirSync(corpusPath(dir)).find((f) => f.endsWith('.utoc'))!;
  return corpusPath(`${dir}/${name}`);
}

/** Runs `body` with the corpus container in `dir` open and a RawRangeReader, closing both after. */
async function withRaw(dir: string, body: (reader: ContainerReader, raw: RawRangeReader) => Promise<void>): Promise<void> {
  const reader = await ContainerReader.open(utocIn(dir));
  const raw = new RawRangeReader();
  try {
    await body(reader, raw);
  } finally {
    raw.close();
    await reader.close();
  }
}

describe.skipIf(!hasCorpus)('RawRangeReader (exact reads of stored-raw chunk bytes)', () => {
  it('reads every chunk of a stored container as the block reader does, whole and in parts', () =>
    withRaw('ue5.8-cue4parse/uncompressed', async (reader, raw) => {
      let read = 0;
      for (let i = 0; i < reader.toc.chunkCount; i++) {
        const size = reader.toc.chunkSize(i);
        if (size === 0) continue;
        const whole = raw.read(reader, i, 0, size);
        expect(whole, `chunk ${i}`).toBeDefined();
        expect(Buffer.from(whole!).equals(Buffer.from(await reader.readChunk(i))), `chunk ${i}`).toBe(true);
        // A range that starts inside the chunk (and crosses a block edge when the chunk has more than one block).
        const from = Math.floor(size / 3);
        const part = raw.read(reader, i, from, size - from)!;
        expect(Buffer.from(part).equals(Buffer.from(await reader.readRange(i, from, size - from))), `chunk ${i} from ${from}`).toBe(true);
        read++;
      }
      expect(read).toBeGreaterThan(100);
      // Outside the chunk: left to the block reader (which reports it).
      expect(raw.read(reader, 0, 1, reader.toc.chunkSize(0))).toBeUndefined();
    }));

  it('leaves compressed chunks to the block reader', () =>
    withRaw('ue5.8-cue4parse/zlib', async (reader, raw) => {
      let compressed = 0;
      for (let i = 0; i < reader.toc.chunkCount; i++) {
        const size = reader.toc.chunkSize(i);
        const b = reader.toc.blockSize;
        const first = Math.floor(reader.toc.chunkOffset(i) / b);
        if (size === 0 || reader.toc.blocks.method(first) === 0) continue;
        compressed++;
        expect(raw.read(reader, i, 0, size), `chunk ${i}`).toBeUndefined();
      }
      expect(compressed).toBeGreaterThan(10);
    }));
});
