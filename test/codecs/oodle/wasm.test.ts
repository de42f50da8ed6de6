import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { oodleDecompress, oodleDecompressReference, oodleDecompressView } from '../../../src/codecs/oodle/index.js';
import { oodleWasmAvailable, wasmDecodeInto, wasmDecodesTo, wasmOutputArea } from '../../../src/codecs/oodle/wasm.js';
import { EncryptionMethod, readToc } from '../../../src/toc/index.js';
import { corpusFiles, corpusPath, hasCorpus } from '../../corpus.js';

/** Every Oodle block of every unencrypted corpus container whose .ucas is present. */
function corpusBlocks(): { stream: Uint8Array; size: number; where: string }[] {
  const blocks: { stream: Uint8Array; size: number; where: string }[] = [];
  for (const rel of corpusFiles('.utoc')) {
    const base = corpusPath(rel.slice(0, -'.utoc'.length));
    if (!existsSync(`${base}.ucas`)) continue;
    const toc = readToc(new Uint8Array(readFileSync(`${base}.utoc`)));
    if (toc.encryption !== EncryptionMethod.None) continue;
    const oodle = toc.compressionMethods.findIndex((m) => m.toLowerCase() === 'oodle');
    if (oodle < 0) continue;
    const parts: Uint8Array[] = [];
    for (let p = 0; p < Math.max(1, toc.partitionCount); p++) parts.push(new Uint8Array(readFileSync(p === 0 ? `${base}.ucas` : `${base}_s${p}.ucas`)));
    const partSize = Number.isFinite(toc.partitionSize) && toc.partitionCount > 1 ? toc.partitionSize : Infinity;
    for (let b = 0; b < toc.blockCount; b++) {
      if (toc.blocks.method(b) !== oodle) continue;
      const off = toc.blocks.offset(b);
      const part = partSize === Infinity ? 0 : Math.floor(off / partSize);
      const at = part === 0 ? off : off - part * partSize;
      blocks.push({ stream: parts[part]!.subarray(at, at + toc.blocks.compressedSize(b)), size: toc.blocks.uncompressedSize(b), where: `${rel} block ${b}` });
    }
  }
  return blocks;
}

function vector(name: string): { stream: Uint8Array; size: number } {
  const bytes = new Uint8Array(readFileSync(corpusPath('oodle-vectors', `xml.${name}`)));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const prefix = name === 'leviathan' ? 8 : 4;
  return { stream: bytes.subarray(prefix), size: prefix === 8 ? Number(view.getBigUint64(0, true)) : view.getUint32(0, true) };
}

describe.skipIf(!hasCorpus)('the WebAssembly Oodle decoder', () => {
  it('is in use on this Node', () => {
    expect(oodleWasmAvailable()).toBe(true);
  });

  for (const name of ['kraken', 'mermaid', 'selkie', 'leviathan']) {
    it(`decodes xml.${name} byte for byte as the TypeScript decoder`, () => {
      const { stream, size } = vector(name);
      const out = new Uint8Array(size);
      expect(wasmDecodeInto(stream, out)).toBe(true);
      expect(Buffer.compare(out, oodleDecompressReference(stream, size))).toBe(0);
    });
  }

  it('leaves BitKnit to the TypeScript decoder, with the output untouched', () => {
    const { stream, size } = vector('bitknit');
    const out = new Uint8Array(size).fill(7);
    expect(wasmDecodeInto(stream, out)).toBe(false);
    expect(out.every((b) => b === 7)).toBe(true);
  });

  it('tells whether a stream decodes to given bytes (the encoder\'s check): a byte changed anywhere, a corrupt stream, BitKnit', () => {
    const { stream, size } = vector('kraken');
    const text = oodleDecompressReference(stream, size);
    expect(wasmDecodesTo(stream, text)).toBe(true);
    // In a 16-byte step, in the tail past the last whole step, and the last byte.
    for (const at of [0, 70000, size - (size % 16) - 1, size - 1]) {
      const other = text.slice();
      other[at]! ^= 0x20;
      expect(wasmDecodesTo(stream, other), `byte ${at}`).toBe(false);
    }
    const broken = stream.slice();
    broken[broken.length >> 1]! ^= 0xff;
    expect(wasmDecodesTo(broken, text)).toBe(false);
    expect(wasmDecodesTo(stream, text.subarray(0, size - 1))).toBe(false);
    const bitknit = vector('bitknit');
    expect(wasmDecodesTo(bitknit.stream, new Uint8Array(bitknit.size))).toBeUndefined();
  });

  it('decodes every Oodle block of the corpus containers byte for byte as the TypeScript decoder', () => {
    const blocks = corpusBlocks();
    expect(blocks.length).toBeGreaterThan(500);
    for (const { stream, size, where } of blocks) {
      const out = new Uint8Array(size);
      if (!wasmDecodeInto(stream, out)) expect.fail(`${where}: not decoded`);
      if (Buffer.compare(out, oodleDecompressReference(stream, size)) !== 0) expect.fail(`${where}: outputs differ`);
    }
  });

  it('oodleDecompressView gives each vector\'s bytes from the module\'s memory, and BitKnit from the TypeScript decoder', () => {
    for (const name of ['kraken', 'mermaid', 'selkie', 'leviathan', 'bitknit']) {
      const { stream, size } = vector(name);
      const view = oodleDecompressView(stream, size);
      // oodleDecompress's copy out: checked against the TypeScript decoder above.
      const reference = oodleDecompress(stream, size);
      expect(view.length, name).toBe(size);
      // No copy out: the view is of the module's memory (the area's buffer), except for BitKnit.
      expect(view.buffer === wasmOutputArea(16)!.buffer, name).toBe(name !== 'bitknit');
      expect(Buffer.compare(view, reference), name).toBe(0);
    }
    // The TypeScript decoder's views reuse one buffer too.
    const { stream, size } = vector('bitknit');
    expect(oodleDecompressView(stream, size).buffer).toBe(oodleDecompressView(stream, size).buffer);
  });

  it('decodes blocks one after another into its output area in place, without growing its memory, as a reader\'s span', () => {
    const blocks = corpusBlocks().filter((b) => b.size <= 0x10000);
    // Grown by a large decode first: the area's view is remade for the new memory.
    const { stream, size } = vector('kraken');
    oodleDecompress(stream, size);
    for (let start = 0; start < blocks.length; start += 8) {
      const span = blocks.slice(start, start + 8);
      const total = span.reduce((a, b) => a + b.size, 0);
      const area = wasmOutputArea(512 << 10)!;
      expect(area.length).toBe(512 << 10);
      const memory = area.buffer.byteLength;
      let at = 0;
      const views: Uint8Array[] = [];
      for (const b of span) {
        const out = area.subarray(at, at + b.size);
        if (!wasmDecodeInto(b.stream, out)) expect.fail(`${b.where}: not decoded`);
        views.push(out);
        at += b.size;
      }
      expect(area.buffer.byteLength).toBe(memory);
      expect(at).toBe(total);
      // Each block whole after the later ones were decoded behind it.
      span.forEach((b, k) => {
        if (Buffer.compare(views[k]!, oodleDecompressReference(b.stream, b.size)) !== 0) expect.fail(`${b.where}: outputs differ`);
      });
    }
  });
});
