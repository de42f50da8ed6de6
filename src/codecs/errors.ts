import { IoStoreError } from '../errors.js';

export function codecError(codec: string, e: unknown): IoStoreError {
  if (e instanceof IoStoreError) return e;
  const msg = (e as Error)?.message ?? String(e);
  return new IoStoreError('CODEC', `${codec}: corrupt block (${msg})`);
}

/** A decoder's output must be exactly the size the TOC declares. */
export function checkedOutput(codec: string, out: Uint8Array, size: number): Uint8Array {
  if (out.length !== size) throw new IoStoreError('CODEC', `${codec}: block decoded to ${out.length} bytes, expected ${size}`);
  // Node's zlib returns a Buffer (a Uint8Array subclass): callers get a plain view of the same bytes. Tested by its
  // constructor, not `instanceof Buffer`: the page has no Buffer, and that test threw there for every Zlib block.
  return out.constructor === Uint8Array ? out : new Uint8Array(out.buffer, out.byteOffset, out.length);
}
