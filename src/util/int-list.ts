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
}
