import { JsonBytes, encodeText } from './json-bytes.js';

/**
 * The text of `JSON.stringify(value, null, 1)` in pieces: objects and arrays down to `splitDepth` are written a
 * member at a time and deeper values whole, so a large document (an unpack manifest: an entry per chunk, tens of
 * MB for a whole game) is never one string, nor one string plus its encoded bytes. The same text, character for
 * character, as the one call would make. Lazy arrays that write their elements as bytes (JsonLazyArray's `bytes`)
 * come out as UTF-8 pieces (Uint8Array, each overwritten once the next piece is pulled); the rest as strings.
 */
export function* jsonPieces(value: unknown, splitDepth = 4, depth = 0): Generator<string | Uint8Array> {
  if (depth < splitDepth && (Array.isArray(value) || value instanceof JsonLazyArray)) {
    yield* arrayPieces(value, splitDepth, depth);
    return;
  }
  const split = depth < splitDepth && value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
  if (!split) {
    // One level of indentation is one space: a nested value's own text moves right by its depth.
    const text = JSON.stringify(value, null, 1) ?? 'null';
    yield depth === 0 ? text : text.replace(/\n/g, `\n${' '.repeat(depth)}`);
    return;
  }
  const inner = `\n${' '.repeat(depth + 1)}`;
  let first = true;
  for (const [key, v] of Object.entries(value as object)) {
    // Members JSON leaves out.
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    yield `${first ? '{' : ','}${inner}${JSON.stringify(key)}: `;
    first = false;
    yield* jsonPieces(v, splitDepth, depth + 1);
  }
  yield first ? '{}' : `\n${' '.repeat(depth)}}`;
}

/**
 * An array whose elements are made when serialized (by `jsonPieces`, a batch at a time): a document's long lists
 * need not exist as objects at all. Anything else serializing it gets the whole array (toJSON).
 */
export class JsonLazyArray<T> {
  constructor(
    readonly length: number,
    readonly at: (i: number) => T,
    /**
     * Element i's text as `JSON.stringify(at(i), null, 1)` makes it, each line after the first led by `indent`: when
     * given, jsonPieces takes it instead of making the element (for long lists of a known shape).
     */
    readonly text?: (i: number, indent: string) => string,
    /** The same text written as UTF-8 into `out`: when given, jsonPieces takes it before `text`. */
    readonly bytes?: (i: number, indent: string, out: JsonBytes) => void,
    /**
     * All elements' text as UTF-8 pieces (each element led by `,\n` and `indent`, the first without the comma; each
     * piece valid until the next is pulled), or undefined: when given and not undefined, taken before `bytes`.
     */
    readonly pieces?: (indent: string) => Iterable<Uint8Array> | undefined,
  ) {}

  slice(start: number, end: number): T[] {
    const out: T[] = [];
    for (let i = start; i < Math.min(end, this.length); i++) out.push(this.at(i));
    return out;
  }

  toJSON(): T[] {
    return this.slice(0, this.length);
  }
}

/** An array (or JsonLazyArray) above the split depth, taken a batch of elements at a time. */
function* arrayPieces(list: { length: number; slice(start: number, end: number): unknown[] }, splitDepth: number, depth: number): Generator<string | Uint8Array> {
  if (list.length === 0) {
    yield '[]';
    return;
  }
  const pad = ' '.repeat(depth);
  const whole = list instanceof JsonLazyArray && depth + 1 >= splitDepth ? list.pieces?.(`${pad} `) : undefined;
  if (whole) {
    yield '[';
    yield* whole;
    yield `\n${pad}]`;
    return;
  }
  const bytes = list instanceof JsonLazyArray ? list.bytes : undefined;
  if (bytes && depth + 1 >= splitDepth) {
    const out = new JsonBytes(BYTES_PIECE + (BYTES_PIECE >> 2));
    out.text('[');
    const next = encodeText(`,\n${pad} `);
    const indent = `${pad} `;
    for (let i = 0; i < list.length; ) {
      i = fillPiece(bytes, i, list.length, indent, i === 0 ? next.subarray(1) : next, next, out);
      if (i < list.length) {
        yield out.view();
        out.clear();
      }
    }
    out.text(`\n${pad}]`);
    yield out.view();
    return;
  }
  const text = list instanceof JsonLazyArray ? list.text : undefined;
  if (text && depth + 1 >= splitDepth) {
    for (let i = 0; i < list.length; i++) yield `${i === 0 ? '[' : ','}\n${pad} ${text(i, `${pad} `)}`;
    yield `\n${pad}]`;
    return;
  }
  for (let i = 0; i < list.length; i += BATCH) {
    const batch = list.slice(i, i + BATCH);
    if (depth + 1 >= splitDepth) {
      // Elements whole: one native stringify per batch (one per element took 3-6x as long). Between "[\n" and
      // "\n]": the elements, one level in, each line moved right by this depth.
      const body = JSON.stringify(batch, null, 1).slice(2, -2);
      yield `${i === 0 ? '[\n' : ',\n'}${depth === 0 ? body : pad + body.replace(/\n/g, `\n${pad}`)}`;
      continue;
    }
    for (let j = 0; j < batch.length; j++) {
      yield `${i + j === 0 ? '[' : ','}\n${pad} `;
      const v = batch[j];
      yield* jsonPieces(v === undefined || typeof v === 'function' || typeof v === 'symbol' ? null : v, splitDepth, depth + 1);
    }
  }
  yield `\n${pad}]`;
}

/**
 * Writes elements [from, end) of a lazy array as bytes into `out` (each led by `lead`, the first by `first`) until
 * BYTES_PIECE bytes are there; returns the next element. The loop over a game's 150,000 manifest entries runs here,
 * in one plain function V8 optimizes once, not in the generators above, which then resume once per piece: resumed
 * per element (a piece every ~170 of them) they and writeFileAtomic's loop were made hot enough that TurboFan
 * compiled each with the writer inlined (~1.1 s of background compile at load average 13).
 */
function fillPiece(bytes: (i: number, indent: string, out: JsonBytes) => void, from: number, end: number, indent: string, first: Uint8Array, lead: Uint8Array, out: JsonBytes): number {
  let i = from;
  out.bytes(first);
  bytes(i++, indent, out);
  while (i < end && out.length < BYTES_PIECE) {
    out.bytes(lead);
    bytes(i++, indent, out);
  }
  return i;
}

/** Array elements serialized per native call below the split depth. */
const BATCH = 256;
/**
 * Bytes of elements written as bytes (JsonLazyArray.bytes) given out at a time: large enough that the generators
 * resume seldom (a 57 MB manifest: ~110 pieces), small enough to stay out of the peak RSS.
 */
const BYTES_PIECE = 1 << 19;

/**
 * UTF-8 bytes of `pieces` in batches of about `batch` bytes, each encoded into one buffer that is reused for the next
 * batch (the consumer writes each before it pulls the next: see AtomicWriteOptions.transient). Text gathered into
 * strings until a batch was full, and a fresh array per batch, had kept the young generation of V8's heap busy with
 * survivors: writing a 150,000-chunk manifest raised peak RSS by ~35 MB.
 */
export function* utf8Batches(pieces: Iterable<string | Uint8Array>, batch = 1 << 16): Generator<Uint8Array> {
  const enc = new TextEncoder();
  let buf = new Uint8Array(batch);
  let fill = 0;
  for (const p of pieces) {
    // Bytes already: given on as they are, after what was gathered before them.
    if (typeof p !== 'string') {
      if (fill > 0) yield buf.subarray(0, fill);
      fill = 0;
      yield p;
      continue;
    }
    // A UTF-16 unit takes at most 3 bytes of UTF-8.
    if (fill > 0 && fill + p.length * 3 > buf.length) {
      yield buf.subarray(0, fill);
      fill = 0;
    }
    if (p.length * 3 > buf.length) buf = new Uint8Array(p.length * 3);
    fill += enc.encodeInto(p, buf.subarray(fill)).written;
  }
  if (fill > 0) yield buf.subarray(0, fill);
}
