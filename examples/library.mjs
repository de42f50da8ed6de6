// Run from the repository's folder: node examples/library.mjs (anywhere else, after `npm i <this package>`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerReader, listChunks, openToc, packFolder, parseZenPackage, unpack, verifyContainer } from 'iostore-toolkit';

const utoc = 'samples/demo/DemoMod-Windows.utoc';

// The table of contents alone: counts, paths, chunk ids.
const toc = await openToc(utoc);
console.log(`${toc.chunkCount} chunks, mount point ${toc.mountPoint}`);
for (const row of listChunks(toc, { type: 'BulkData', sort: 'size' })) console.log(row.path, row.size);

// One file by its path: find its chunk, read it (decrypted and decompressed), parse the zen package.
const reader = await ContainerReader.open(utoc);
try {
  const i = reader.toc.findPath('DemoMod/Content/Demo/Hello.uasset'); // -1 when the container has no such file
  const pkg = parseZenPackage(await reader.readChunk(i), { source: reader.toc.chunkPath(i) });
  console.log(pkg.packageName, `${pkg.exports.length} export(s)`, pkg.names.slice(0, 3));
  const check = await verifyContainer(reader); // every chunk's hash against its meta
  console.log(`verified ${check.verified}/${check.chunks}, ${check.mismatches.length} mismatch(es)`);
} finally {
  await reader.close();
}

// A whole container to a folder and back.
const work = mkdtempSync(join(tmpdir(), 'iostore-example-'));
try {
  const out = await unpack([utoc], join(work, 'out'));
  console.log(`unpacked ${out.chunksWritten} chunks, ${out.bytesWritten} bytes`);
  const packed = await packFolder(join(work, 'out'), join(work, 'Rebuilt.utoc'));
  console.log(`packed ${packed.chunks} chunks into ${packed.utoc} (${packed.compression})`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
