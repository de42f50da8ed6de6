import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unpackWithPreload } from './preload-unpack.js';

/**
 * Counts the calling thread's calls of node:fs's openSync, writeSync and closeSync (the bundles read node:fs's
 * exports at each call, so the preload's wrappers see theirs) and writes them once the process exits.
 */
const PRELOAD = `
const fs = require('node:fs');
const wt = require('node:worker_threads');
if (wt.isMainThread) {
  const calls = { openSync: 0, writeSync: 0, closeSync: 0 };
  for (const name of Object.keys(calls)) {
    const own = fs[name];
    fs[name] = function (...a) {
      calls[name]++;
      return own.apply(this, a);
    };
  }
  process.on('exit', () => {
    for (const [name, n] of Object.entries(calls)) fs.writeSync(2, JSON.stringify({ main: true, event: name + ' ' + n }) + '\\n');
  });
}
`;

const [major, minor] = process.versions.node.split('.');
/** Where the loader calls Node's fs binding itself (bin/bundle-loader.js RAW_FS_NODES). */
const known = `${major}.${minor}` === '20.20' && process.platform !== 'win32';

describe("the chunk loop's files (src/chunks/chunk-loop.ts writeChunkAtSync)", () => {
  it("are opened by their path's bytes, written and closed through the loader's calls, not node:fs's per chunk", async () => {
    if (!known) return;
    const { utoc, events } = await unpackWithPreload(1800, 512, PRELOAD);
    // Main's build: each chunk of the calling thread's share (about half of them) was an openSync, a writeSync and a
    // closeSync of node:fs, whose argument checks each isolate ran and compiled (~5 KB of Node's source).
    const counts = Object.fromEntries(events.map((e) => e.event.split(' ')).map(([name, n]) => [name!, Number(n)]));
    expect(Object.keys(counts).sort()).toEqual(['closeSync', 'openSync', 'writeSync']);
    for (const [name, n] of Object.entries(counts)) expect(n, name).toBeLessThan(20);
    const files = readdirSync(join(dirname(utoc), 'out'), { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
    expect(files.length).toBeGreaterThan(1800);
  }, 90_000);
});
