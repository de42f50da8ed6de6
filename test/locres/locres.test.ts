/** .locres files: the project's own (in the Minimal-*.pak companions of ue5.8 and ue6.0), and each older layout. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cityHash64, IoStoreError, isLocres, parseLocres, readPak, readPakEntryData, utf16leBytes } from '../../src/index.js';
import { corpusPath } from '../corpus.js';

/** The .locres entries of a Minimal pak, by culture. */
function corpusLocres(release: string): Map<string, Uint8Array> {
  const bytes = new Uint8Array(readFileSync(corpusPath(`${release}-cue4parse`, 'paks', 'CUE4ParseFixtures-Minimal-Uncompressed.pak')));
  const pak = readPak(bytes);
  const out = new Map<string, Uint8Array>();
  for (const e of pak.entries) if (e.path.endsWith('.locres')) out.set(e.path.split('/').at(-2)!, readPakEntryData(bytes, pak, e));
  return out;
}

/** The engine's key hash of version 3: CityHash64 of the UTF-16 text, folded to 32 bits as GetTypeHash(u64) does. */
function keyHash(s: string): number {
  const h = cityHash64(utf16leBytes(s));
  return (Number(h & 0xffffffffn) + Math.imul(Number(h >> 32n), 23)) >>> 0;
}

describe('.locres', () => {
  it.each(['ue5.8', 'ue6.0'])('%s: both cultures, every key, texts in Latin-1 and UTF-16', (release) => {
    const files = corpusLocres(release);
    expect([...files.keys()].sort()).toEqual(['de', 'en']);
    const en = parseLocres(files.get('en')!, { source: 'en.locres' });
    const de = parseLocres(files.get('de')!, { source: 'de.locres' });
    for (const l of [en, de]) {
      expect(l.version).toBe(3);
      expect(l.versionName).toBe('Optimized_CityHash64_UTF16');
    }
    expect(en.entries.length).toBeGreaterThan(3);
    expect(en.entries.find((e) => e.key === 'CityGreeting')).toEqual({ namespace: 'CUE4ParseFixtures.Tests', key: 'CityGreeting', sourceHash: 0x60db9a0b, text: 'Greetings from Frankfurt' });
    // A text stored as UTF-16 (negative length) with characters beyond Latin-1.
    expect(en.entries.find((e) => e.key === 'Unicode')!.text).toMatch(/^Unicode source text .*[^\u0000-\u00ff]/u);
    // The same keys in both cultures; the German texts differ and carry the same source hashes.
    const key = (e: { namespace: string; key: string }) => `${e.namespace}/${e.key}`;
    expect(de.entries.map(key).sort()).toEqual(en.entries.map(key).sort());
    for (const e of de.entries) {
      const source = en.entries.find((x) => key(x) === key(e))!;
      expect(e.sourceHash).toBe(source.sourceHash);
    }
    expect(de.entries.filter((e) => e.text !== en.entries.find((x) => key(x) === key(e))!.text).length).toBeGreaterThan(0);
    // Two German keys share one entry of the string table.
    const text = (k: string) => de.entries.find((e) => e.key === k)!.text;
    expect(text('SharedFirst')).toBe('Gemeinsam verwendete Übersetzung');
    expect(text('SharedSecond')).toBe(text('SharedFirst'));
  });

  it('the hashes before each namespace and key are those of the strings read after them (the layout is read in step)', () => {
    const bytes = corpusLocres('ue5.8').get('en')!;
    const l = parseLocres(bytes);
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    const text = new TextDecoder('latin1').decode(bytes);
    for (const s of [...new Set(l.entries.map((e) => e.namespace)), ...l.entries.map((e) => e.key)]) {
      const at = text.indexOf(`${s}\0`);
      expect(at, s).toBeGreaterThan(8);
      expect(view.getUint32(at - 8, true), s).toBe(keyHash(s));
    }
  });

  /** A .locres of the given layout (0 to 3) with two keys sharing one text. */
  function build(version: number): Uint8Array {
    const out: number[] = [];
    const u32 = (v: number) => out.push(v & 255, (v >>> 8) & 255, (v >>> 16) & 255, v >>> 24);
    const str = (s: string) => {
      u32(s.length + 1);
      for (const c of s) out.push(c.charCodeAt(0));
      out.push(0);
    };
    if (version > 0) {
      out.push(0x0e, 0x14, 0x74, 0x75, 0x67, 0x4a, 0x03, 0xfc, 0x4a, 0x15, 0x90, 0x9d, 0xc3, 0x37, 0x7f, 0x1b, version);
      out.push(0, 0, 0, 0, 0, 0, 0, 0); // string table offset, set below
    }
    if (version >= 2) u32(2);
    u32(1);
    if (version >= 2) u32(0x1234);
    str('Menu');
    u32(2);
    for (const [k, text] of [['Play', 'Jouer'], ['Start', 'Jouer']] as const) {
      if (version >= 2) u32(0x5678);
      str(k);
      u32(0xabcd);
      if (version === 0) str(text);
      else u32(0);
    }
    if (version > 0) {
      const table = out.length;
      out.splice(17, 8, table & 255, (table >>> 8) & 255, (table >>> 16) & 255, table >>> 24, 0, 0, 0, 0);
      u32(1);
      str('Jouer');
      if (version >= 2) u32(2);
    }
    return Uint8Array.from(out);
  }

  it.each([0, 1, 2, 3])('layout %i', (version) => {
    const bytes = build(version);
    expect(isLocres(bytes)).toBe(version > 0);
    const l = parseLocres(bytes);
    expect(l.version).toBe(version);
    expect(l.namespaceCount).toBe(1);
    expect(l.entries).toEqual([
      { namespace: 'Menu', key: 'Play', sourceHash: 0xabcd, text: 'Jouer' },
      { namespace: 'Menu', key: 'Start', sourceHash: 0xabcd, text: 'Jouer' },
    ]);
  });

  it('bad input: one typed error naming the file and offset, never a huge allocation', () => {
    const good = build(3);
    const errorOf = (b: Uint8Array) => {
      try {
        parseLocres(b, { source: 'x.locres' });
      } catch (e) {
        expect(e).toBeInstanceOf(IoStoreError);
        return (e as IoStoreError).message;
      }
      return 'no error';
    };
    const future = good.slice();
    future[16] = 9;
    expect(errorOf(future)).toBe('x.locres at offset 0x10: .locres version 9 (this tool reads 0 to 3)');
    const many = good.slice();
    new DataView(many.buffer).setUint32(29, 0x7fffffff, true); // namespace count
    expect(errorOf(many)).toMatch(/^x\.locres at offset 0x21: namespaces: 2147483647 entries of 12 bytes need/);
    const index = good.slice();
    new DataView(index.buffer).setInt32(good.length - 4 - 4 - 6 - 4 - 4, 5, true); // the second key's string index
    expect(errorOf(index)).toMatch(/string index 5 is outside the table of 1 strings$/);
    for (let n = 0; n < good.length; n++) expect(errorOf(good.subarray(0, n))).not.toBe('no error');
  });

  it('mutated corpus files: a result or one typed error, never another exception', () => {
    const base = corpusLocres('ue5.8').get('de')!;
    let seed = 26;
    const rand = (k: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % k;
    for (let i = 0; i < 400; i++) {
      const b = base.slice();
      for (let f = 0; f < 1 + rand(6); f++) b[rand(Math.min(b.length, i % 2 ? 400 : b.length))] = rand(256);
      try {
        parseLocres(b);
      } catch (e) {
        expect(e).toBeInstanceOf(IoStoreError);
      }
    }
  });
});
