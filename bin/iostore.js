#!/usr/bin/env node
// The `iostore` command: a thin shell over the compiled library (npm install builds dist/). This file is CommonJS
// (bin/package.json) and loads the bundled CLI (scripts/build-cli.mjs): an ES module entry point and ES imports of
// built-ins cost a short command a good part of its run.
'use strict';
// pack and pak unpack keep several asynchronous writes in flight through libuv's thread pool (unpack and verify of
// containers use blocking calls): give the pool room for them. This must be set before the first file operation.
process.env.UV_THREADPOOL_SIZE ??= '16';
// V8 doubles its young generation each time a scavenge keeps much alive (up to 16 MiB per semispace on 64-bit): unpack's
// plan of a few thousand chunks grew it to the maximum, 10 MB of peak RSS. Kept at its starting size, unpack and
// verify of the bench container measured the same time (more, cheaper scavenges). The factor is read when the young
// generation grows, so setting it here, before any work, takes effect; the other V8 heap flags do not.
require('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
const { run, abortWrites } = require('../dist/cli/main.bundle.cjs');

// An interrupted run must not leave temporary files behind (final names are only ever complete files).
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    process.stderr.write(`\niostore: interrupted\n`);
    // The bundle's own output module: the one whose temporary files the command registered.
    abortWrites(require('node:fs').unlinkSync).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

// `iostore list ... | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`iostore: ${e?.message ?? e}\n`);
    process.exitCode = 2;
  },
);
