/**
 * A block codec as the container names it (`Zlib`, `Oodle`, `LZ4` ...). Decoders are synchronous pure functions over
 * bytes so they run the same in Node, a worker or a browser.
 */
export interface Codec {
  /** The name a .utoc uses for the method (matched case-insensitively). */
  readonly name: string;
  /**
   * Decodes one block. `uncompressedSize` is the exact size the TOC declares; a decoder must never produce more,
   * and must throw (IoStoreError code 'CODEC') on corrupt input rather than read or write out of range.
   */
  decompress(src: Uint8Array, uncompressedSize: number): Uint8Array;
  /**
   * Decodes one block into `out` (bytes [0, uncompressedSize)), for readers that reuse one output buffer. `out` has
   * room for uncompressedSize + 1 bytes: the byte past the end is scratch, where a stream longer than declared shows.
   * Optional: readers fall back to `decompress` and a copy.
   */
  decompressInto?(src: Uint8Array, uncompressedSize: number, out: Uint8Array): void;
  /**
   * A buffer of at least `bytes` bytes in the decoder's own memory (a WebAssembly module's), into which
   * `decompressInto` decodes without copying the output out; undefined when there is none. A reader that reuses one
   * output buffer asks for it before each span of blocks and hands out views of it until its next span: it is
   * valid until the decoder's next call other than `decompressInto` into it. Optional.
   */
  outputArea?(bytes: number): Uint8Array | undefined;
  /** Encodes one block, for `pack`; codecs that only decode leave it out. */
  compress?(src: Uint8Array): Uint8Array;
  /**
   * How a worker thread builds the same codec (functions cannot cross threads). Built-in codecs need none; a codec
   * with neither decodes on the calling thread only, so work that needs it stays off the worker threads.
   */
  readonly recipe?: CodecRecipe;
}

/** A module (URL) whose named export, an async factory, returns the codec when called with `args`. */
export interface CodecRecipe {
  readonly module: string;
  readonly factory: string;
  readonly args: readonly (string | number | boolean)[];
}
