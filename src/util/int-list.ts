/**
 * A growable list of 32-bit integers in one typed array: per-chunk state of a run (a plan's container and TOC
 * index, a task's plan position) at 4 bytes an entry, where a JavaScript array of numbers takes 8 or more and
 * doubles as it grows.
 */
export class IntList {
  private data: Int32Array;
  private size = 0;

  constructor(capacity = 16) {
    this.data = new Int32Array(Math.max(4, capacity));
  }

  get length(): number {
    return this.size;
  }

  push(v: number): number {
    if (this.size === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.size] = v;
    return this.size++;
  }

  /** Appends `count` copies of v (a whole container's chunks in one call, not a call per chunk). */
  pushRepeated(v: number, count: number): void {
    this.reserve(count);
    this.data.fill(v, this.size, this.size + count);
    this.size += count;
  }

  /** Appends `values`, each plus `add`. */
  pushAll(values: Int32Array, add = 0): void {
    this.reserve(values.length);
    if (add === 0) this.data.set(values, this.size);
    else for (let j = 0; j < values.length; j++) this.data[this.size + j] = values[j]! + add;
    this.size += values.length;
  }

  private reserve(more: number): void {
    if (this.size + more <= this.data.length) return;
    let cap = this.data.length * 2;
    while (cap < this.size + more) cap *= 2;
    const grown = new Int32Array(cap);
    grown.set(this.data.subarray(0, this.size));
    this.data = grown;
  }

  get(k: number): number {
    return this.data[k]!;
  }

  set(k: number, v: number): void {
    this.data[k] = v;
  }

  /** The entries, trimmed to their count (a copy). */
  toInt32Array(): Int32Array {
    return this.data.slice(0, this.size);
  }

  /** The entries in an Int32Array over a SharedArrayBuffer: sent to worker threads without a copy per thread. */
  toSharedInt32Array(): Int32Array {
    // A page that is not cross-origin isolated has no SharedArrayBuffer: a plain copy then.
    if (typeof SharedArrayBuffer === 'undefined') return this.toInt32Array();
    const out = new Int32Array(new SharedArrayBuffer(this.size * 4));
    out.set(this.data.subarray(0, this.size));
    return out;
  }
}

/** IntList for numbers beyond 32 bits (offsets, sizes): 8 bytes an entry. */
export class NumberList {
  private data: Float64Array;
  private size = 0;

  constructor(capacity = 16) {
    this.data = new Float64Array(Math.max(4, capacity));
  }

  get length(): number {
    return this.size;
  }

  push(v: number): number {
    if (this.size === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.size] = v;
    return this.size++;
  }

  get(k: number): number {
    return this.data[k]!;
  }

  /** The entries, trimmed to their count (a copy). */
  toFloat64Array(): Float64Array {
    return this.data.slice(0, this.size);
  }
}

/** A growable run of bytes: records of fixed size appended one after another, or text kept as bytes. */
export class ByteList {
  private data: Uint8Array;
  private size = 0;

  constructor(capacity = 256) {
    this.data = new Uint8Array(Math.max(16, capacity));
  }

  get length(): number {
    return this.size;
  }

  /** Room for `n` more bytes at the end: the view to fill (valid until the next append), already counted. */
  extend(n: number): Uint8Array {
    if (this.size + n > this.data.length) {
      const grown = new Uint8Array(Math.max(this.data.length * 2, this.size + n));
      grown.set(this.data.subarray(0, this.size));
      this.data = grown;
    }
    const view = this.data.subarray(this.size, this.size + n);
    this.size += n;
    return view;
  }

  append(bytes: Uint8Array): void {
    this.extend(bytes.length).set(bytes);
  }

  /** Bytes [start, end) (a view: valid until the next append). */
  view(start = 0, end = this.size): Uint8Array {
    return this.data.subarray(start, end);
  }

  at(k: number): number {
    return this.data[k]!;
  }

  clear(): void {
    this.size = 0;
  }

  /** Drops the bytes from `length` on. */
  truncate(length: number): void {
    this.size = Math.min(this.size, length);
  }
}
