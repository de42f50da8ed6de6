import type { ByteReader } from '../util/bytes.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

/** Longest string accepted from an index; the engine caps mount points at 65535 characters too. */
export const MAX_PAK_STRING = 65535;

/** FUtf8String as the v12+ directory index stores file names: i32 byte count, UTF-8 bytes, no NUL. */
export function readUtf8String(r: ByteReader, what: string): string {
  const at = r.pos;
  const len = r.i32(`${what} length`);
  if (len < 0 || len > MAX_PAK_STRING) r.fail('BAD_VALUE', `${what}: invalid UTF-8 string length ${len}`, at);
  const raw = r.bytesView(len, what);
  try {
    return utf8.decode(raw);
  } catch {
    return r.fail('BAD_VALUE', `${what}: not valid UTF-8`, at);
  }
}

export function decodeUtf8(raw: Uint8Array): string | undefined {
  try {
    return utf8.decode(raw);
  } catch {
    return undefined;
  }
}

export function encodeUtf8(s: string): Uint8Array {
  return utf8Encoder.encode(s);
}

export function encodeUtf8String(s: string): Uint8Array {
  const body = utf8Encoder.encode(s);
  const out = new Uint8Array(4 + body.length);
  new DataView(out.buffer).setInt32(0, body.length, true);
  out.set(body, 4);
  return out;
}

/** An FString with the engine's sanity cap applied (a corrupt length must not yield a megabyte "path"). */
export function readPakFString(r: ByteReader, what: string): string {
  const at = r.pos;
  const s = r.fstring(what);
  if (s.length > MAX_PAK_STRING) r.fail('BAD_VALUE', `${what}: ${s.length} characters is longer than the ${MAX_PAK_STRING} allowed`, at);
  return s;
}
