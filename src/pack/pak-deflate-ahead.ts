import type { Codec } from '../codecs/codec.js';
import { deflateRoom } from '../codecs/zlib.js';
import { PAK_READ_ROOM, type BlocksAhead, type CompressedBlock, type PakInputFile } from '../pak/pak-writer.js';
import { defaultDeflates, zlibLevel } from './deflate-ahead.js';
import { DeflatePool } from './deflate-pool.js';

/** A block's room, reused: its raw bytes as read, and its deflated form. */
interface Slot {
  raw: Uint8Array;
  out: Uint8Array;
}

/** A block read ahead (`size` bytes of its slot), its deflate under way; or the end of a file. */
type Queued = { file: number; slot: Slot; size: number; job: Promise<number> } | { file: number; slot: undefined };

/** File ends queued at most, beside the blocks (a pak of tiny files would otherwise queue thousands of files). */
const AHEAD_ITEMS = 1024;

/**
 * A pak's Zlib blocks deflated on every core (node:zlib on libuv's thread pool, as `pack` does for containers: see
 * deflate-ahead.ts): the files are read in order, block by block, into reused rooms, each block deflated as soon as
 * a deflate is free, and the writer takes them in order, so the pak is byte for byte the one a single thread writes.
 * What is in flight is bounded by rooms (two per deflate, and a few more), whatever the size of the files.
 * Undefined for another codec, or where node:zlib cannot deflate this way.
 */
export function pakDeflateAhead(files: readonly PakInputFile[], codec: Codec, blockSize: number): BlocksAhead | undefined {
  const level = zlibLevel(codec);
  if (level === undefined) return undefined;
  const deflates = DeflatePool.create(level, defaultDeflates());
  return deflates && new PakDeflateAhead(files, blockSize, deflates);
}

class PakDeflateAhead implements BlocksAhead {
  private readonly queue: Queued[] = [];
  private readonly free: Slot[] = [];
  private slots = 0;
  private readonly maxSlots: number;
  /** The reader, waiting for a room or queue space; the writer, waiting for a block. */
  private room: (() => void) | undefined;
  private arrived: (() => void) | undefined;
  private stopped = false;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly files: readonly PakInputFile[],
    private readonly blockSize: number,
    private readonly deflates: DeflatePool,
  ) {
    this.maxSlots = 2 * deflates.size + 4;
    this.read().catch((error: unknown) => {
      this.failure = { error };
      this.wakeWriter();
    });
  }

  async *blocksOf(index: number): AsyncGenerator<CompressedBlock> {
    let last: Slot | undefined;
    try {
      for (;;) {
        const q = await this.take();
        // The writer is done with the block before (written, hashed) once it asks for the next.
        if (last) this.release(last);
        last = q.slot;
        if (q.file !== index) throw new Error(`pak blocks asked for file ${index}, read ahead for ${q.file}`);
        if (!q.slot) return;
        const n = await q.job;
        yield { raw: q.slot.raw.subarray(0, q.size), packed: q.slot.out.subarray(0, n) };
      }
    } finally {
      if (last) this.release(last);
    }
  }

  stop(): void {
    this.stopped = true;
    this.wakeReader();
  }

  /** Reads every file of a byte or more in order, block by block, each deflated as soon as a deflate is free. */
  private async read(): Promise<void> {
    // Each piece is copied into a block's room before the next is read.
    const room = new Uint8Array(PAK_READ_ROOM);
    for (let i = 0; i < this.files.length && !this.stopped; i++) {
      const f = this.files[i]!;
      if (f.size === 0) continue;
      let slot: Slot | undefined;
      let fill = 0;
      const send = () => {
        const s = slot!;
        const job = this.deflates.deflate(s.raw.subarray(0, fill), s.out);
        this.push({ file: i, slot: s, size: fill, job });
        slot = undefined;
        fill = 0;
      };
      for await (const piece of f.read(room)) {
        for (let at = 0; at < piece.length; ) {
          if (!slot) {
            slot = await this.takeSlot();
            if (this.stopped) return;
          }
          const n = Math.min(this.blockSize - fill, piece.length - at);
          slot.raw.set(piece.subarray(at, at + n), fill);
          fill += n;
          at += n;
          if (fill === this.blockSize) send();
        }
      }
      if (slot && fill > 0) send();
      else if (slot) this.release(slot);
      while (this.queue.length >= AHEAD_ITEMS && !this.stopped) await new Promise<void>((r) => (this.room = r));
      this.push({ file: i, slot: undefined });
    }
  }

  private async takeSlot(): Promise<Slot> {
    for (;;) {
      const s = this.free.pop();
      if (s) return s;
      if (this.slots < this.maxSlots) {
        this.slots++;
        return { raw: new Uint8Array(this.blockSize), out: new Uint8Array(deflateRoom(this.blockSize)) };
      }
      if (this.stopped) return { raw: new Uint8Array(0), out: new Uint8Array(0) };
      await new Promise<void>((r) => (this.room = r));
    }
  }

  private release(s: Slot): void {
    this.free.push(s);
    this.wakeReader();
  }

  private push(q: Queued): void {
    this.queue.push(q);
    this.wakeWriter();
  }

  private wakeWriter(): void {
    const wake = this.arrived;
    this.arrived = undefined;
    wake?.();
  }

  private wakeReader(): void {
    const wake = this.room;
    this.room = undefined;
    wake?.();
  }

  private async take(): Promise<Queued> {
    while (this.queue.length === 0) {
      if (this.failure) throw this.failure.error;
      await new Promise<void>((r) => (this.arrived = r));
    }
    const q = this.queue.shift()!;
    this.wakeReader();
    return q;
  }
}
