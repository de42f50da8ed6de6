/**
 * A set of string keys that holds none of the strings: each entry is a 32-bit hash of its key and a reference (a
 * non-negative integer), from which the owner makes the key again (`keyOf`) when a lookup meets the same hash. A
 * run's output paths cost ~16 bytes each here, where a Map of path strings took ~100 (the string, the entry).
 */
export class KeyTable {
  /** Open addressing: per slot the entry's reference + 1 (0: empty) and its key's hash. */
  private refs = new Int32Array(64);
  private hashes = new Int32Array(64);
  private count = 0;

  constructor(private readonly keyOf: (ref: number) => string) {}

  get size(): number {
    return this.count;
  }

  /** The reference of the entry whose key is `key`, or -1. */
  find(key: string): number {
    const h = hashString(key);
    const mask = this.refs.length - 1;
    for (let s = h & mask; this.refs[s] !== 0; s = (s + 1) & mask) {
      if (this.hashes[s] === h && this.keyOf(this.refs[s]! - 1) === key) return this.refs[s]! - 1;
    }
    return -1;
  }

  /** Adds `key` with `ref`, or points the entry already holding `key` at `ref`. */
  set(key: string, ref: number): void {
    const h = hashString(key);
    const mask = this.refs.length - 1;
    let s = h & mask;
    for (; this.refs[s] !== 0; s = (s + 1) & mask) {
      if (this.hashes[s] === h && this.keyOf(this.refs[s]! - 1) === key) {
        this.refs[s] = ref + 1;
        return;
      }
    }
    this.refs[s] = ref + 1;
    this.hashes[s] = h;
    if (++this.count * 2 > this.refs.length) this.grow();
  }

  /**
   * Adds `key` with `ref` unless an entry holds it already; returns that entry's reference, or -1 when added. One
   * hash and one probe where `find` then `set` took two (a claim per output file: 150,000 in a game's plan).
   */
  addIfAbsent(key: string, ref: number): number {
    const h = hashString(key);
    const mask = this.refs.length - 1;
    let s = h & mask;
    for (; this.refs[s] !== 0; s = (s + 1) & mask) {
      if (this.hashes[s] === h && this.keyOf(this.refs[s]! - 1) === key) return this.refs[s]! - 1;
    }
    this.refs[s] = ref + 1;
    this.hashes[s] = h;
    if (++this.count * 2 > this.refs.length) this.grow();
    return -1;
  }

  private grow(): void {
    const refs = this.refs;
    const hashes = this.hashes;
    this.refs = new Int32Array(refs.length * 2);
    this.hashes = new Int32Array(refs.length * 2);
    const mask = this.refs.length - 1;
    for (let k = 0; k < refs.length; k++) {
      if (refs[k] === 0) continue;
      let s = hashes[k]! & mask;
      while (this.refs[s] !== 0) s = (s + 1) & mask;
      this.refs[s] = refs[k]!;
      this.hashes[s] = hashes[k]!;
    }
  }
}

/** FNV-1a over the UTF-16 code units, mixed at the end (paths that differ in their last digits probe apart). */
function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
