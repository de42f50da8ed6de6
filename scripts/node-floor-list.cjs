// The bench's Node floor for `list` (issue 28): the least a Node process can do to list the bench container. It reads
// the .utoc whole (as `list` does: every table of it goes into the rows) and writes as many bytes as the listing has
// to stdout, in the parts `list` writes (64 KiB, blocking writes), from one buffer: no parsing, no rows made. A
// CommonJS main file, as bin/iostore.js is. What it takes, whole process, is a bound no Node program that lists the
// container can go below: `node -e 0` reads no file and writes nothing, and 1 MB of JSON into the bench's pipe is
// part of the job.
// Usage: node node-floor-list.cjs <utoc> <bytes of the listing>
'use strict';
const { closeSync, openSync, readSync, writeSync } = require('node:fs');

const [, , utoc, total] = process.argv;
const fd = openSync(utoc, 'r');
let toc = Buffer.allocUnsafe(1 << 20);
for (let at = 0, n; (n = readSync(fd, toc, at, toc.length - at, at)) > 0; ) {
  at += n;
  if (at === toc.length) toc = Buffer.concat([toc, Buffer.allocUnsafe(toc.length)]);
}
closeSync(fd);
const PART = 1 << 16;
const part = Buffer.alloc(PART, 0x20);
for (let left = Number(total); left > 0; left -= PART) writeSync(1, part, 0, Math.min(PART, left));
