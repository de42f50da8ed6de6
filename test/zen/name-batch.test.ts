import { describe, expect, it } from 'vitest';
import { ByteReader } from '../../src/util/bytes.js';
import {
  ByteWriter,
  nameHash,
  parseNameHashes,
  parseNameStrings,
  parseOldNameBatch,
  readNameBatch,
  serializeNameBatch,
  serializeNameHashes,
  serializeNameStrings,
  writeNameBatch,
} from '../../src/zen/index.js';

const names = ['None', '/Script/CoreUObject', 'Set_日本語', 'a', '', 'Ünïcødé', 'PackageName'];

describe('name batches', () => {
  it('hash is CityHash64 of the lower-cased name (bytes for ASCII, UTF-16LE for wide names)', () => {
    expect(nameHash('ACLCompressionLevel')).toBe(0x9b1242dd628271dfn);
    expect(nameHash('')).toBe(0x9ae16a3b2f90404fn);
  });

  it('new format: layout and round trip, with wide names', () => {
    const bytes = serializeNameBatch(names);
    const v = new DataView(bytes.buffer);
    expect(v.getUint32(0, true)).toBe(names.length);
    const stringBytes = names.reduce((a, n) => a + (/[^\x00-\x7f]/.test(n) ? n.length * 2 : n.length), 0);
    expect(v.getUint32(4, true)).toBe(stringBytes);
    expect(v.getBigUint64(8, true)).toBe(0xc1640000n);
    // Headers are big-endian; bit 15 marks UTF-16.
    const headersAt = 16 + names.length * 8;
    expect(v.getUint16(headersAt + 2 * 2, false)).toBe(0x8000 | 'Set_日本語'.length);
    expect(v.getUint16(headersAt, false)).toBe(4);
    expect(bytes.length).toBe(headersAt + names.length * 2 + stringBytes);
    const back = readNameBatch(new ByteReader(bytes, 't'));
    expect(back.names).toEqual(names);
    expect(back.hashes).toEqual(names.map(nameHash));
    // Stored hashes are kept as given.
    const w = new ByteWriter();
    writeNameBatch(w, { names: ['x'], hashes: [123n] });
    expect(readNameBatch(new ByteReader(w.finish(), 't')).hashes).toEqual([123n]);
  });

  it('new format: an empty batch is just a zero count', () => {
    expect(Array.from(serializeNameBatch([]))).toEqual([0, 0, 0, 0]);
    expect(readNameBatch(new ByteReader(new Uint8Array(4), 't'))).toEqual({ names: [], hashes: [] });
  });

  it('old format: wide names start at an even offset; hashes part has the algorithm id first', () => {
    const strings = serializeNameStrings(['ab', 'Set_日本語', 'abc', 'ü']);
    // 'ab': 2+2 = 4 bytes; wide header at 4..6, chars at 6 (even, no pad); 'abc' at 6+14=20..25; 'ü' header 25..27, pad 27, chars 28.
    expect(strings.length).toBe(4 + 2 + 14 + 5 + 2 + 1 + 2);
    expect(strings[27]).toBe(0);
    expect(parseNameStrings(strings)).toEqual(['ab', 'Set_日本語', 'abc', 'ü']);
    const hashes = serializeNameHashes([1n, 2n, 3n, 4n]);
    expect(hashes.length).toBe(40);
    expect(parseNameHashes(hashes)).toEqual([1n, 2n, 3n, 4n]);
    expect(parseOldNameBatch(strings, hashes).names.length).toBe(4);
    expect(() => parseOldNameBatch(strings, serializeNameHashes([1n]))).toThrow(/4 names but 1 hashes/);
    expect(parseNameHashes(new Uint8Array(0))).toEqual([]);
  });
});
