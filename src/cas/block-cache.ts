/** A small least-recently-used cache of decoded blocks; its size, not the container's, bounds memory. */
export class BlockCache {
  private readonly map = new Map<number, Uint8Array>();
  constructor(readonly capacity: number) {}

  get(block: number): Uint8Array | undefined {
    const v = this.map.get(block);
    if (v !== undefined) {
      this.map.delete(block);
      this.map.set(block, v);
    }
    return v;
  }

  set(block: number, data: Uint8Array): void {
    if (this.capacity <= 0) return;
    this.map.delete(block);
    this.map.set(block, data);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }

  clear(): void {
    this.map.clear();
  }
}
