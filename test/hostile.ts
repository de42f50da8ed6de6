// Crafted hostile inputs for the tests of issue #24, built in the test from the project's own writers and patched
// where no writer would go (no binary is committed).
import { createHash } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { readPak, writeCompanionPak } from '../src/pak/index.js';
import { writePakBytes, type PakWriterOptions } from '../src/pak/pak-writer.js';

export const BIN = resolve(__dirname, '../bin/iostore.js');

const enc = (s: string) => new TextEncoder().encode(s);
const sha1 = (b: Uint8Array) => new Uint8Array(createHash('sha1').update(b).digest());

/**
 * A v8 pak (one legacy index: each path, then its full entry) of these files, stored, with each path then replaced by
 * the raw text `rename` gives for it (same length: the writer refuses control characters and duplicates, a hostile
 * pak does not). The index hash is put right again, so the pak passes every check but the names.
 */
export function pakWithNames(files: Array<{ path: string; data: Uint8Array | string }>, rename: Record<string, string> = {}, o: { mountPoint?: string } = {}): Uint8Array {
  const bytes = writeCompanionPak({ version: 8, ...(o.mountPoint ? { mountPoint: o.mountPoint } : {}), files: files.map((f) => ({ path: f.path, data: typeof f.data === 'string' ? enc(f.data) : f.data })) });
  const pak = readPak(bytes, { source: 'x.pak' });
  const index = bytes.subarray(pak.indexOffset, pak.indexOffset + pak.indexSize);
  for (const [from, to] of Object.entries(rename)) {
    if (to.length !== from.length) throw new Error(`rename ${from} -> ${to}: lengths differ`);
    const at = Buffer.from(index).indexOf(Buffer.from(`${from}\0`, 'latin1'));
    if (at < 0) throw new Error(`no ${from} in the index`);
    index.set(Buffer.from(to, 'latin1'), at);
  }
  rehashV8(bytes);
  return bytes;
}

/** Puts the SHA-1 of a v8 pak's index back into its footer after a patch. */
export function rehashV8(bytes: Uint8Array): void {
  const pak = readPak(bytes, { source: 'x.pak', verifyHashes: false });
  bytes.set(sha1(bytes.subarray(pak.indexOffset, pak.indexOffset + pak.indexSize)), pak.footer.offset + 41);
}

/**
 * A v8 Zlib pak holding `name` (64 KiB of zeros, one block) whose entry then declares `declared` bytes, in its block
 * size and uncompressed size, in the index and in the in-place header alike: a decoder that trusts the declaration
 * allocates that much.
 */
export async function pakDeclaringBlock(name: string, declared: number, o: Partial<PakWriterOptions> = {}): Promise<Uint8Array> {
  const bytes = await writePakBytes([{ path: name, data: new Uint8Array(65536) }], { version: 8, compression: 'Zlib', blockSize: 65536, ...o });
  const pak = readPak(bytes, { source: 'x.pak' });
  const e = pak.entries[0]!;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  // A full FPakEntry: offset, size, uncompressed size (u64 each), method (u32), SHA-1, block count, blocks (16 each),
  // flags (u8), block size (u32).
  const patch = (at: number) => {
    view.setBigUint64(at + 16, BigInt(declared), true);
    const blocks = view.getInt32(at + 48, true);
    view.setUint32(at + 52 + 16 * blocks + 1, declared, true);
  };
  patch(e.offset);
  const index = Buffer.from(bytes.buffer, bytes.byteOffset + pak.indexOffset, pak.indexSize);
  patch(pak.indexOffset + index.indexOf(Buffer.from(`${name}\0`, 'latin1')) + name.length + 1);
  rehashV8(bytes);
  return bytes;
}

/** Sets a little-endian u32 of a copy of `bytes`. */
export function withU32(bytes: Uint8Array, at: number, value: number): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setUint32(at, value >>> 0, true);
  return out;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the built CLI in a child process, killed after `timeoutMs` (a hang shows as signal SIGKILL). */
export function runBin(args: string[], o: { timeoutMs?: number; cwd?: string } = {}): Promise<Exit> {
  return new Promise((res) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...(o.cwd ? { cwd: o.cwd } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 10_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      res({ code, signal, stdout, stderr, ms: performance.now() - t0 });
    });
  });
}

/**
 * A fresh tmpfs of `size` bytes mounted at `dir` (read-only with `ro`), or undefined where this process may not mount
 * one (not root, no mount command): tests of a full disk and a read-only file system skip then. Unmount it after.
 */
export function mountTmpfs(dir: string, o: { size: number; ro?: boolean }): { unmount(): void } | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `${o.ro ? 'ro,' : ''}size=${o.size}`, 'tmpfs', dir], { stdio: 'ignore' });
  if (r.status !== 0) return undefined;
  return { unmount: () => void spawnSync('umount', ['-l', dir], { stdio: 'ignore' }) };
}
