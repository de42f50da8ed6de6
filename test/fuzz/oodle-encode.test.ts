import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { encodeOodleStream, type OodleEncoderName } from '../../src/codecs/oodle/encode/index.js';
import { oodleDecompress } from '../../src/codecs/oodle/index.js';
import { ContainerReader, parseAesKey, readToc } from '../../src/index.js';
import { hasOoz, oozDecode } from '../codecs/oodle/ooz.js';
import { CORPUS_AES_KEY_HEX, corpusFiles, corpusPath, hasCorpus } from '../corpus.js';

/**
 * The Oodle encoder over the whole corpus (`npm run fuzz`, or IOSTORE_FUZZ_ENCODE=1): every chunk of every corpus
 * container with its .ucas, cut into 64 KiB blocks as pack cuts them, encoded at the fastest, default and an optimal
 * level and decoded back by our decoder and by ooz; the Oodle vectors' text whole; and the size of a Kraken and a
 * Mermaid pack at the highest level against the engine's own Oodle containers. The normal suite runs a sample
 * (test/codecs/oodle/encode.test.ts).
 */
const FULL = !!process.env.IOSTORE_FUZZ_ENCODE;
const BLOCK = 0x10000;

async function corpusBlocks(): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const seen = new Set<string>();
  const key = parseAesKey(CORPUS_AES_KEY_HEX);
  for (const rel of corpusFiles('.utoc')) {
    const utoc = corpusPath(rel);
    if (!existsSync(utoc.replace(/\.utoc$/, '.ucas'))) continue;
    const reader = await ContainerReader.open(utoc, { aesKey: key });
    try {
      for (let i = 0; i < reader.toc.chunkCount; i++) {
        // The variants of a project (encrypted, partitioned ...) hold the same chunks: each is encoded once.
        const hash = reader.toc.chunkHashHex(i);
        if (seen.has(hash)) continue;
        seen.add(hash);
        const chunk = await reader.readChunk(i);
        for (let o = 0; o < chunk.length; o += BLOCK) out.push(chunk.subarray(o, o + BLOCK));
      }
    } finally {
      await reader.close();
    }
  }
  return out;
}

function check(codec: OodleEncoderName, level: number, inputs: Uint8Array[]): Array<[Uint8Array, number, Uint8Array]> {
  const out: Array<[Uint8Array, number, Uint8Array]> = [];
  inputs.forEach((data, k) => {
    const stream = encodeOodleStream(data, { codec, level });
    expect(Buffer.from(oodleDecompress(stream, data.length)).equals(Buffer.from(data)), `${codec} ${level}: input ${k}`).toBe(true);
    out.push([stream, data.length, data]);
  });
  return out;
}

function checkWithOoz(streams: Array<[Uint8Array, number, Uint8Array]>): void {
  if (!hasOoz) return;
  const decoded = oozDecode(streams.filter(([, n]) => n > 0).map(([s, n]) => [s, n] as const));
  streams.filter(([, n]) => n > 0).forEach(([, , data], k) => expect(Buffer.from(decoded[k]!).equals(Buffer.from(data)), `ooz: input ${k}`).toBe(true));
}

describe.skipIf(!FULL || !hasCorpus)('Oodle encoder over the whole corpus', () => {
  it('every corpus chunk, block by block: Kraken 1, 4, 7, Mermaid 4, 7, Selkie 4, Leviathan 4, 7 decode back (ours and ooz)', async () => {
    const blocks = await corpusBlocks();
    expect(blocks.length).toBeGreaterThan(400);
    for (const [codec, level] of [['kraken', 1], ['kraken', 4], ['kraken', 7], ['mermaid', 4], ['mermaid', 7], ['selkie', 4], ['leviathan', 4], ['leviathan', 7]] as const) checkWithOoz(check(codec, level, blocks));
  }, 1_800_000);

  it('the Oodle vectors\' text, whole, at every level of Kraken and Mermaid (and Leviathan at 4)', () => {
    const f = new Uint8Array(readFileSync(corpusPath('oodle-vectors', 'xml.kraken')));
    const text = oodleDecompress(f.subarray(4), f[0]! | (f[1]! << 8) | (f[2]! << 16) | (f[3]! << 24));
    for (let level = 1; level <= 9; level++) checkWithOoz([...check('kraken', level, [text]), ...check('mermaid', level, [text])]);
    checkWithOoz(check('leviathan', 4, [text]));
  }, 1_800_000);

  it.each([
    ['kraken', 1.1],
    ['mermaid', 1.15],
  ] as const)('%s at level 9, block for block, is within %f of the engine\'s Oodle containers (ue5.8 and ue6.0)', (codec, ratio) => {
    for (const project of ['ue5.8-cue4parse', 'ue6.0-cue4parse']) {
      const open = (dir: string, name: string) => {
        const base = corpusPath(project, dir, name);
        return { toc: readToc(new Uint8Array(readFileSync(`${base}.utoc`))), ucas: new Uint8Array(readFileSync(`${base}.ucas`)) };
      };
      const plain = open('uncompressed', 'CUE4ParseFixtures-Minimal-Uncompressed-Windows');
      const engine = open('oodle', 'CUE4ParseFixtures-Minimal-Oodle-Windows');
      let theirs = 0;
      for (let b = 0; b < engine.toc.blockCount; b++) theirs += engine.toc.blocks.compressedSize(b);
      let ours = 0;
      for (let b = 0; b < plain.toc.blockCount; b++) {
        const at = plain.toc.blocks.offset(b);
        const data = plain.ucas.subarray(at, at + plain.toc.blocks.uncompressedSize(b));
        ours += Math.min(data.length, encodeOodleStream(data, { codec, level: 9 }).length);
      }
      expect(ours, `${project}: ours ${ours}, engine ${theirs}`).toBeLessThan(theirs * ratio);
    }
  }, 1_800_000);
});
