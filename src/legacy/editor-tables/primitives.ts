import type { ByteReader } from '../../util/bytes.js';
import { latin1, utf16le } from '../../util/bytes.js';
import type { ByteWriter } from '../../zen/byte-writer.js';

/** FUtf8String: i32 byte count (no terminator), the bytes. */
export function readUtf8String(r: ByteReader, what: string): string {
  const at = r.pos;
  const n = r.i32(`${what} length`);
  if (n < 0 || n > r.remaining) r.fail('BAD_VALUE', `${what} of ${n} bytes does not fit the table`, at);
  return new TextDecoder().decode(r.bytesView(n, what));
}

/**
 * An FSoftObjectPath sub-path saved before the UTF-8 form had its version step: an FString, or (some packages were
 * saved so without the step) UTF-8 bytes with no terminator. The engine tells them apart by the last character, as
 * here: a NUL ends an FString.
 */
export function readLegacySubPath(r: ByteReader, what: string): string {
  const at = r.pos;
  const n = r.i32(`${what} length`);
  if (n === 0) return '';
  if (n === -0x80000000) r.fail('BAD_VALUE', `${what}: invalid length ${n}`, at);
  const wide = n < 0;
  const size = wide ? -n * 2 : n;
  if (size > r.remaining) r.fail('TRUNCATED', `${what}: ${size} bytes exceed the ${r.remaining} that remain`, at);
  const raw = r.bytesView(size, what);
  if (wide) {
    if (raw[size - 1] === 0 && raw[size - 2] === 0) return utf16le(raw.subarray(0, size - 2));
    r.fail('BAD_VALUE', `${what}: a UTF-16 string without its NUL`, at);
  }
  if (raw[size - 1] === 0) return latin1(raw.subarray(0, size - 1));
  return new TextDecoder().decode(raw);
}

export { writeFString, writeUtf8String } from '../strings.js';

/** FArchive's bool: a u32, 0 or 1 (anything else read as true, written back as 1). */
export const readBool = (r: ByteReader, what: string): boolean => r.u32(what) !== 0;
export const writeBool = (w: ByteWriter, v: boolean): void => w.u32(v ? 1 : 0);

/**
 * An i32 element count, checked before anything loops over it: not negative, and `minSize` bytes per element fit
 * in what remains (a count from a file never sizes more work than the file can back).
 */
export function readCount(r: ByteReader, minSize: number, what: string): number {
  const at = r.pos;
  const n = r.i32(`${what} count`);
  if (n < 0) r.fail('BAD_VALUE', `${what} count ${n} is negative`, at);
  if (n * minSize > r.remaining) r.fail('TRUNCATED', `${what}: ${n} entries of at least ${minSize} bytes do not fit the ${r.remaining} bytes that remain`, at);
  return n;
}

export { readName } from '../tables.js';

export function writeName(w: ByteWriter, n: { index: number; number: number }): void {
  w.i32(n.index);
  w.i32(n.number);
}

/** A 64-bit offset or size that must be a safe integer (-1 allowed where `none` is). */
export function readI64n(r: ByteReader, what: string, none = false): number {
  const at = r.pos;
  const v = r.i64(what);
  if (v < (none ? -1n : 0n) || v > BigInt(Number.MAX_SAFE_INTEGER)) r.fail('BAD_VALUE', `${what} ${v} is out of range`, at);
  return Number(v);
}
