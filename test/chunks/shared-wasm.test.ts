import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { WASM_ENTRIES_MIN } from '../../src/layout/manifest-wasm.js';
import { unpackWithPreload } from './preload-unpack.js';

/**
 * A line per event, written as it happens (a worker ended by the run's exit does not run its exit handlers): each
 * thread's start, each WebAssembly.Module it compiles (the module's size), each worker thread it creates.
 */
const PRELOAD = `
const wt = require('node:worker_threads');
const { writeSync } = require('node:fs');
const say = (event) => writeSync(2, JSON.stringify({ main: wt.isMainThread, event }) + '\\n');
say('start');
const Module = WebAssembly.Module;
WebAssembly.Module = function (bytes) { say('compile ' + bytes.byteLength); return new Module(bytes); };
const Worker = wt.Worker;
wt.Worker = class extends Worker { constructor(...a) { say('worker'); super(...a); } };
`;

describe('WebAssembly modules of a short unpack with a worker thread', () => {
  it('are compiled once, on the calling thread before the worker starts, and shared with the worker', async () => {
    if (availableParallelism() < 2) return;
    // Enough chunks for a worker started ahead (WRITE_FILES_MIN) and for the manifest's module (WASM_ENTRIES_MIN).
    const { utoc, events } = await unpackWithPreload(3400, 1024, PRELOAD);
    expect(statSync(utoc).size).toBeGreaterThanOrEqual(WASM_ENTRIES_MIN * 96);
    const main = events.filter((e) => e.main).map((e) => e.event);
    const worker = events.filter((e) => !e.main).map((e) => e.event);
    // One worker, which compiles nothing (on main's build it compiled the TOC loops' module again, beside this thread).
    expect(main.filter((e) => e === 'worker')).toEqual(['worker']);
    expect(worker).toEqual(['start']);
    // This thread compiled both of its modules (the TOC loops' and the manifest's) before it made the worker.
    expect(main.join(', ')).toMatch(/^start, compile \d+, compile \d+, worker$/);
  }, 90_000);
});
