// One measured job in a fresh process, so its peak RSS is its own. Prints JSON { ms, bytes, maxRss }.
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { inflateSync } from 'node:zlib';
import { readToc, unpack } from '../dist/index.js';

const [mode, a, b] = process.argv.slice(2);
const t0 = performance.now();
let bytes = 0;
if (mode === 'unpack') {
  // argv[5]: worker threads (default: the library's choice, one per core for a container this size).
  const threads = process.argv[5] === undefined ? {} : { threads: Number(process.argv[5]) };
  const r = await unpack([a], b, { jobs: 8, ...threads });
  if (r.failures.length) throw new Error(JSON.stringify(r.failures[0]));
  bytes = r.bytesWritten;
} else if (mode === 'to-legacy') {
  const { toLegacy } = await import('../dist/index.js');
  const r = await toLegacy([a], b, { jobs: 8 });
  if (r.failures.length) throw new Error(JSON.stringify(r.failures[0]));
  bytes = r.bytesWritten;
  console.log(JSON.stringify({ ms: performance.now() - t0, bytes, maxRss: process.resourceUsage().maxRSS * 1024, packages: r.packages, packageBytes: r.packageBytes }));
  process.exit(0);
} else if (mode === 'pack') {
  const { packFolder } = await import('../dist/index.js');
  // argv[6]: worker threads (default: the library's choice).
  const threads = process.argv[6] === undefined ? {} : { threads: Number(process.argv[6]) };
  const r = await packFolder(a, b, { compression: process.argv[5] ?? 'none', noPak: true, ...threads });
  bytes = r.bytes;
} else if (mode === 'deflate') {
  // Raw node:zlib deflate of every 64 KiB block of the files of a folder (read first; only deflate is timed).
  const { deflateSync } = await import('node:zlib');
  const { readdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  const files = [];
  const walk = (d) => { for (const e of readdirSync(d, { withFileTypes: true })) { const p = join(d, e.name); if (e.isDirectory()) walk(p); else if (!e.name.endsWith('.json')) files.push(readFileSync(p)); } };
  walk(a);
  const t1 = performance.now();
  for (const f of files) for (let o = 0; o < f.length; o += 65536) { deflateSync(f.subarray(o, o + 65536)); bytes += Math.min(65536, f.length - o); }
  console.log(JSON.stringify({ ms: performance.now() - t1, bytes, maxRss: process.resourceUsage().maxRSS * 1024 }));
  process.exit(0);
} else if (mode === 'decode') {
  // One decoder over a container's compressed blocks in the JIT's steady state: argv a = .utoc, b = oodle|zlib.
  const { oodleDecompress } = await import('../dist/index.js');
  const toc = readToc(new Uint8Array(readFileSync(a)));
  const ucas = readFileSync(a.replace(/\.utoc$/, '.ucas'));
  const blocks = [];
  for (let k = 0; k < toc.blockCount; k++) {
    if (toc.blocks.method(k) === 0) continue;
    const off = toc.blocks.offset(k);
    blocks.push([new Uint8Array(ucas.subarray(off, off + toc.blocks.compressedSize(k))), toc.blocks.uncompressedSize(k)]);
  }
  const f = b === 'oodle' ? (c, u) => oodleDecompress(c, u) : (c) => inflateSync(c);
  const pass = () => { for (const [c, u] of blocks) bytes += f(c, u).length; };
  for (let i = 0; i < 40; i++) pass();
  bytes = 0;
  const t1 = performance.now();
  for (let i = 0; i < 40; i++) pass();
  console.log(JSON.stringify({ ms: performance.now() - t1, bytes, maxRss: process.resourceUsage().maxRSS * 1024, blocks: blocks.length }));
  process.exit(0);
} else if (mode === 'vector') {
  // One Oodle test vector (corpus/oodle-vectors/xml.<codec>: size prefix, 8 bytes for Leviathan, 4 otherwise, then
  // the raw stream) decoded over and over on one core: argv a = the file, b = its codec name.
  const { oodleDecompress } = await import('../dist/index.js');
  const file = new Uint8Array(readFileSync(a));
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const prefix = b === 'leviathan' ? 8 : 4;
  const size = prefix === 8 ? Number(view.getBigUint64(0, true)) : view.getUint32(0, true);
  const stream = file.subarray(prefix);
  for (let i = 0; i < 3; i++) oodleDecompress(stream, size);
  const t1 = performance.now();
  let n = 0;
  while (performance.now() - t1 < 1500 || n < 2) {
    bytes += oodleDecompress(stream, size).length;
    n++;
  }
  console.log(JSON.stringify({ ms: performance.now() - t1, bytes, maxRss: process.resourceUsage().maxRSS * 1024 }));
  process.exit(0);
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
