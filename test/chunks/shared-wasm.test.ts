import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WASM_ENTRIES_MIN } from '../../src/layout/manifest-wasm.js';
import { tempDir } from '../tmp.js';

const root = resolve(__dirname, '../..');

/** Per thread, as it exits: each WebAssembly.Module compiled (its size), and when a worker thread was created. */
const PRELOAD = `
const { isMainThread, Worker } = require('node:worker_threads');
const events = [];
const Module = WebAssembly.Module;
WebAssembly.Module = function (bytes) { events.push('compile ' + bytes.byteLength); return new Module(bytes); };
const wt = require('node:worker_threads');
wt.Worker = class extends Worker { constructor(...a) { events.push('worker'); super(...a); } };
process.on('exit', () => require('node:fs').writeSync(2, JSON.stringify({ main: isMainThread, events }) + '\\n'));
`;

describe('WebAssembly modules of a short unpack with a worker thread', () => {
  it('are compiled once, on the calling thread before the worker starts, and shared with the worker', async () => {
    if (availableParallelism() < 2) return;
    const tmp = tempDir();
    // @ts-expect-error plain JS module
    const { writeSyntheticContainer } = await import('../../scripts/synth.mjs');
    // Enough chunks for a worker started ahead (WRITE_FILES_MIN) and for the manifest's module (WASM_ENTRIES_MIN).
    const { utoc } = await writeSyntheticContainer(tmp, 'Many-Windows', { chunks: 3400, blocksPerChunk: 1, rawSize: 1024 });
    expect(statSync(utoc).size).toBeGreaterThanOrEqual(WASM_ENTRIES_MIN * 96);
    const preload = join(tmp, 'wasm-preload.cjs');
    writeFileSync(preload, PRELOAD);
    const r = spawnSync(process.execPath, ['--require', preload, join(root, 'bin', 'iostore.js'), 'unpack', utoc, join(tmp, 'out'), '--quiet'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    const threads = r.stderr.trim().split('\n').map((l) => JSON.parse(l) as { main: boolean; events: string[] });
    const main = threads.find((t) => t.main)!;
    const workers = threads.filter((t) => !t.main);
    expect(workers.length).toBe(1);
    // The worker compiles nothing (on main's build it compiled the TOC loops' module again, beside the calling thread).
    expect(workers[0]!.events).toEqual([]);
    // The calling thread compiled both of its modules (the TOC loops' and the manifest's) before it made the worker.
    expect(main.events.filter((e) => e.startsWith('compile')).length).toBe(2);
    expect(main.events.at(-1)).toBe('worker');
  }, 90_000);
});
