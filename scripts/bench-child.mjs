// One measured job in a fresh process, so its peak RSS is its own. Prints JSON { ms, bytes, maxRss }.
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { inflateSync } from 'node:zlib';
import { readToc, unpack } from '../dist/index.js';

const [mode, a, b] = process.argv.slice(2);
const t0 = performance.now();
let bytes = 0;
if (mode === 'unpack') {
  const r = await unpack([a], b, { jobs: 8 });
  if (r.failures.length) throw new Error(JSON.stringify(r.failures[0]));
  bytes = r.bytesWritten;
} else if (mode === 'stream-copy') {
  await pipeline(createReadStream(a, { highWaterMark: 1 << 20 }), createWriteStream(b));
  bytes = statSync(a).size;
} else if (mode === 'inflate') {
  // Raw node:zlib on exactly the container's compressed blocks (read whole, so only inflate is timed after).
  const toc = readToc(new Uint8Array(readFileSync(a)));
  const ucas = readFileSync(a.replace(/\.utoc$/, '.ucas'));
  const t1 = performance.now();
  for (let k = 0; k < toc.blockCount; k++) {
    const off = toc.blocks.offset(k);
    bytes += inflateSync(ucas.subarray(off, off + toc.blocks.compressedSize(k))).length;
  }
  console.log(JSON.stringify({ ms: performance.now() - t1, bytes, maxRss: process.resourceUsage().maxRSS * 1024 }));
  process.exit(0);
}
console.log(JSON.stringify({ ms: performance.now() - t0, bytes, maxRss: process.resourceUsage().maxRSS * 1024 }));
