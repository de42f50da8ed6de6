import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin', 'iostore.js');
const corpusUtoc = join(root, '..', 'shared', 'corpus');
const demo = join(root, 'samples', 'demo', 'DemoMod-Windows.utoc');

type SyncFs = Pick<typeof fs, 'openSync' | 'readSync' | 'writeSync' | 'closeSync'>;
const { syncFs } = require(join(root, 'bin', 'bundle-loader.js')) as { syncFs: SyncFs & { sizeSync: (path: unknown) => number; fsizeSync: (fd: unknown) => number } };
const [major, minor] = process.versions.node.split('.');
const known = `${major}.${minor}` === '20.20' && process.platform !== 'win32';

/** What a call gives (its value or its error's code, message and syscall), to compare the loader's calls with node:fs's. */
function outcome(call: () => unknown): unknown {
  try {
    return { value: call() };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return { name: err.name, code: err.code, message: err.message, syscall: err.syscall, path: err.path };
  }
}

describe("the loader's blocking file calls (bin/bundle-loader.js syncFs, src/util/sync-fs.ts)", () => {
  it("read the bytes node:fs reads, and fail as node:fs fails (a missing file, a folder, a closed descriptor, bad arguments)", () => {
    const dir = tempDir('iostore-sync-fs-');
    const file = join(dir, 'bytes.bin');
    const bytes = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7) & 0xff);
    fs.writeFileSync(file, bytes);
    for (const f of [syncFs, fs as SyncFs]) {
      const fd = f.openSync(file, 'r');
      const into = new Uint8Array(6000);
      expect(f.readSync(fd, into, 10, 4000, 1000)).toBe(4000);
      expect(into.subarray(10, 4010)).toEqual(bytes.subarray(1000, 5000));
      expect(f.readSync(fd, into, 0, 100, 5000)).toBe(0);
      expect(f.readSync(fd, into, 0, 0, 0)).toBe(0);
      f.closeSync(fd);
    }
    const missing = join(dir, 'missing.utoc');
    const cases: Array<(f: SyncFs) => unknown> = [
      (f) => f.openSync(missing, 'r'),
      (f) => f.openSync(`${file}\0x`, 'r'),
      (f) => f.openSync('', 'r'),
      (f) => f.readSync(f.openSync(dir, 'r'), new Uint8Array(4), 0, 1, 0),
      (f) => f.readSync(f.openSync(file, 'r'), new Uint8Array(4), 0, 8, 0),
      (f) => f.readSync(f.openSync(file, 'r'), new Uint8Array(4), -1, 1, 0),
      (f) => f.readSync(f.openSync(file, 'r'), new Uint8Array(4), 0.5, 1, 0),
      (f) => f.readSync(1 << 30, new Uint8Array(4), 0, 1, 0),
      (f) => f.closeSync(1 << 30),
      (f) => f.writeSync(1 << 30, new Uint8Array(4)),
      (f) => f.writeSync(f.openSync(file, 'r'), new Uint8Array(4), 0, 4),
      (f) => f.writeSync(1 << 30, new Uint8Array(4), 2, 8),
    ];
    for (const c of cases) expect(outcome(() => c(syncFs)), c.toString()).toEqual(outcome(() => c(fs as SyncFs)));
  });

  it("open a path's bytes with numeric flags (the chunk loop's files) as node:fs does, and fail alike", () => {
    const dir = tempDir('iostore-sync-fs-');
    const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC;
    for (const [k, f] of [syncFs, fs as SyncFs].entries()) {
      const file = join(dir, `made-${k}.bin`);
      const fd = f.openSync(Buffer.from(file), flags);
      expect(f.writeSync(fd, Buffer.from('chunk'))).toBe(5);
      f.closeSync(fd);
      expect(fs.readFileSync(file, 'latin1')).toBe('chunk');
    }
    const cases: Array<(f: SyncFs) => unknown> = [
      (f) => f.openSync(Buffer.from(join(dir, 'no-folder', 'x.bin')), flags),
      (f) => f.openSync(Buffer.from(`${join(dir, 'x')}\0y`), flags),
      (f) => f.openSync(Buffer.alloc(0), flags),
      (f) => f.openSync(dir, flags),
      (f) => f.openSync(Buffer.from(join(dir, 'made-0.bin')), 1.5),
    ];
    for (const c of cases) expect(outcome(() => c(syncFs)), c.toString()).toEqual(outcome(() => c(fs as SyncFs)));
  });

  it('write byte views whole or in part, and hand text (with its position and encoding) to node:fs', () => {
    const dir = tempDir('iostore-sync-fs-');
    const file = join(dir, 'out.txt');
    const fd = fs.openSync(file, 'w');
    expect(syncFs.writeSync(fd, Buffer.from('abcdef'))).toBe(6);
    expect(syncFs.writeSync(fd, Buffer.from('0123456789'), 2)).toBe(8);
    expect(syncFs.writeSync(fd, new Uint8Array([0x41, 0x42, 0x43, 0x44]), 1, 2)).toBe(2);
    expect(syncFs.writeSync(fd, 'text')).toBe(4);
    expect((syncFs.writeSync as (fd: number, s: string, position: number, encoding: string) => number)(fd, '7a', 0, 'hex')).toBe(1);
    fs.closeSync(fd);
    expect(fs.readFileSync(file, 'latin1')).toBe('zbcdef23456789BCtext');
  });

  it(`on Node 20.20 (POSIX), list and info reach none of node:fs's open, read, write and close functions`, () => {
    if (!known) return;
    const log = join(tempDir('iostore-sync-fs-'), 'v8.log');
    for (const args of [['list', '--json'], ['list'], ['info', '--json']]) {
      // V8's function events (the flag makes Node compile its own functions from source): a `parse-function` of
      // node:fs is one of its functions called. main's build: openSync, readSync, closeSync, writeSync.
      const r = spawnSync(process.execPath, ['--log-function-events', `--logfile=${log}`, '--no-logfile-per-isolate', bin, args[0]!, demo, ...args.slice(1)], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const lines = fs.readFileSync(log, 'latin1').split('\n');
      const fsScript = new Set(lines.filter((l) => /^script-details,\d+,node:fs,/.test(l)).map((l) => l.split(',')[1]));
      const called = lines.filter((l) => l.startsWith('function,parse-function,') && fsScript.has(l.split(',')[2])).map((l) => l.split(',').pop());
      expect(called.filter((n) => /^(open|read|write|close)Sync$/.test(n!)), args.join(' ')).toEqual([]);
    }
  });

  it("give a file's size as statSync does, and fail as it fails (a missing file, an empty path, a NUL, not a string)", () => {
    const dir = tempDir('iostore-sync-fs-');
    const sizes = [0, 1, 5000, (1 << 20) + 3];
    for (const n of sizes) fs.writeFileSync(join(dir, `f${n}`), new Uint8Array(n));
    for (const n of sizes) expect(syncFs.sizeSync(join(dir, `f${n}`))).toBe(n);
    expect(syncFs.sizeSync(dir)).toBe(fs.statSync(dir).size);
    // A symbolic link is followed, as statSync follows it.
    fs.symlinkSync(join(dir, 'f5000'), join(dir, 'link'));
    expect(syncFs.sizeSync(join(dir, 'link'))).toBe(5000);
    const cases: unknown[] = [join(dir, 'missing'), join(dir, 'f0', 'below'), '', `${join(dir, 'f1')}\0x`, 7, undefined];
    const size = (p: unknown) => (fs.statSync as (p: unknown) => fs.Stats)(p).size;
    for (const c of cases) expect(outcome(() => syncFs.sizeSync(c)), String(c)).toEqual(outcome(() => size(c)));
  });

  it("give an open file's size as fstatSync does, and fail as it fails (a closed descriptor, not a descriptor)", () => {
    const dir = tempDir('iostore-sync-fs-');
    for (const n of [0, 1, 5000, (1 << 20) + 3]) {
      fs.writeFileSync(join(dir, `f${n}`), new Uint8Array(n));
      const fd = fs.openSync(join(dir, `f${n}`), 'r');
      try {
        expect(syncFs.fsizeSync(fd)).toBe(n);
      } finally {
        fs.closeSync(fd);
      }
    }
    const closed = fs.openSync(join(dir, 'f1'), 'r');
    fs.closeSync(closed);
    const size = (fd: unknown) => (fs.fstatSync as (fd: unknown) => fs.Stats)(fd).size;
    for (const c of [closed, -1, 1.5, '3', undefined]) expect(outcome(() => syncFs.fsizeSync(c)), String(c)).toEqual(outcome(() => size(c)));
  });

  it('list and info write the same bytes with node:fs (IOSTORE_NODE_FS=1), and fail alike on a missing file', () => {
    const utocs = [demo, ...(fs.existsSync(corpusUtoc) ? fs.readdirSync(corpusUtoc, { recursive: true }).map(String).filter((p) => p.endsWith('.utoc')).slice(0, 3).map((p) => join(corpusUtoc, p)) : [])];
    for (const utoc of [...utocs, join(root, 'missing.utoc')]) {
      for (const args of [['list', utoc, '--json'], ['list', utoc], ['info', utoc]]) {
        const [a, b] = ['0', '1'].map((v) => spawnSync(process.execPath, [bin, ...args], { env: { ...process.env, IOSTORE_NODE_FS: v }, maxBuffer: 1 << 28 }));
        expect(a!.status, args.join(' ')).toBe(b!.status);
        expect(a!.signal, args.join(' ')).toBeNull();
        expect(a!.stdout.equals(b!.stdout), args.join(' ')).toBe(true);
        expect(a!.stderr.toString()).toBe(b!.stderr.toString());
      }
    }
  });
});
