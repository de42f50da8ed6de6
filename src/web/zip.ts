/**
 * A .zip built while the entries are read: each decoded piece goes through fflate's streaming Zip (stored, CRC-32
 * computed on the fly) into a sink, so memory holds one piece at a time plus what the sink keeps.
 */
import { Zip, ZipPassThrough } from 'fflate';

export interface ZipSink {
  write(chunk: Uint8Array): void | Promise<void>;
  /** Waits for every write to land; returns the finished archive when the sink keeps it. */
  close(): Promise<Blob | undefined>;
}

/**
 * Keeps the archive as a Blob of parts: the pending parts are folded into the Blob every `foldBytes`, so each byte
 * lives in one place (the browser may page large Blobs to disk) rather than in a growing array as well.
 */
export function blobSink(foldBytes = 32 << 20): ZipSink {
  let blob = new Blob([], { type: 'application/zip' });
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const fold = () => {
    blob = new Blob([blob, ...(pending as BlobPart[])], { type: 'application/zip' });
    pending = [];
    pendingBytes = 0;
  };
  return {
    write(chunk) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= foldBytes) fold();
    },
    async close() {
      fold();
      return blob;
    },
  };
}

/** Writes the archive straight to a file the user picked (File System Access API), never holding it. */
export function writableSink(w: { write(d: Uint8Array): Promise<void>; close(): Promise<void> }): ZipSink {
  let chain = Promise.resolve();
  return {
    write(chunk) {
      chain = chain.then(() => w.write(chunk));
      return chain;
    },
    async close() {
      await chain;
      await w.close();
      return undefined;
    },
  };
}

export interface ZipEntrySource {
  path: string;
  pieces: () => AsyncIterable<Uint8Array>;
}

export interface ZipProgress {
  files: number;
  filesTotal: number;
  bytes: number;
}

/**
 * Streams `entries` into one archive. Entry failures are collected (the archive goes on without that file) and
 * returned; `shouldStop` ends the archive early with what it has.
 */
export async function zipEntries(entries: readonly ZipEntrySource[], sink: ZipSink, onProgress?: (p: ZipProgress) => void, shouldStop?: () => boolean): Promise<{ archive: Blob | undefined; failures: string[] }> {
  const failures: string[] = [];
  let writes: Promise<void> = Promise.resolve();
  let zipError: Error | undefined;
  const zip = new Zip((err, chunk) => {
    if (err) zipError = err;
    else {
      const r = sink.write(chunk);
      if (r) writes = writes.then(() => r);
    }
  });
  const progress: ZipProgress = { files: 0, filesTotal: entries.length, bytes: 0 };
  let lastTick = 0;
  for (const e of entries) {
    if (shouldStop?.()) break;
    // Read the first piece before adding the entry, so a chunk that cannot be read leaves no empty file behind.
    const it = e.pieces()[Symbol.asyncIterator]();
    let first: IteratorResult<Uint8Array>;
    try {
      first = await it.next();
    } catch (err) {
      failures.push(`${e.path}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      continue;
    }
    const file = new ZipPassThrough(e.path);
    zip.add(file);
    try {
      let cur = first;
      while (!cur.done) {
        file.push(cur.value);
        progress.bytes += cur.value.length;
        cur = await it.next();
        if (performance.now() - lastTick > 100) {
          lastTick = performance.now();
          onProgress?.({ ...progress });
          await writes;
        }
      }
    } catch (err) {
      failures.push(`${e.path}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)} (the file in the archive is cut short)`);
    }
    file.push(new Uint8Array(0), true);
    progress.files++;
    if (zipError) throw zipError;
  }
  zip.end();
  onProgress?.({ ...progress });
  await writes;
  if (zipError) throw zipError;
  return { archive: await sink.close(), failures };
}
