import type { ByteWriter } from '../zen/byte-writer.js';
import { isWideLegacyName } from './name-hash.js';

/**
 * FString as the engine writes it: i32 length with the terminator, Latin-1 bytes; UTF-16 with a negative length
 * when any character is outside ASCII (`wide` forces either form, for strings stored the other way). '' is length 0.
 */
export function writeFString(w: ByteWriter, s: string, wide = isWideLegacyName(s)): void {
  if (s === '') {
    w.i32(0);
    return;
  }
  if (wide) {
    w.i32(-(s.length + 1));
    for (let i = 0; i < s.length; i++) w.u16(s.charCodeAt(i));
    w.u16(0);
  } else {
    w.i32(s.length + 1);
    w.latin1(s);
    w.u8(0);
  }
}

/** FUtf8String: i32 byte count, the bytes (no terminator). */
export function writeUtf8String(w: ByteWriter, s: string): void {
  const b = new TextEncoder().encode(s);
  w.i32(b.length);
  w.bytes(b);
}
