import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ContainerReader, cityHash64, lowerAscii, parseAesKey, parseContainerHeader, parseZenPackage, serializeContainerHeader, utf16leBytes } from '../../src/index.js';
import { CORPUS_AES_KEY_HEX, corpusFiles, corpusPath } from '../corpus.js';

// Every corpus container that has its .ucas: plain, Zlib, Oodle, partitioned, encrypted (with the published key).
const readable = corpusFiles('.utoc').filter((f) => existsSync(corpusPath(f.replace(/\.utoc$/, '.ucas'))));
const KEY = parseAesKey(CORPUS_AES_KEY_HEX);

const nameHash = (n: string) => {
  const lower = /[^\x00-\x7f]/.test(n) ? n.toLowerCase() : lowerAscii(n);
  return cityHash64(/[^\x00-\x7f]/.test(n) ? utf16leBytes(lower) : new TextEncoder().encode(lower));
};

it('covers all 22 corpus containers that have their .ucas', () => expect(readable).toHaveLength(22));

describe.each(readable)('%s', (rel) => {
  it('its container header writes back byte for byte and lists exactly its packages; every package parses', async () => {
    const r = await ContainerReader.open(corpusPath(rel), { aesKey: KEY });
    try {
      const toc = r.toc;
      const packageIds = new Set<bigint>();
      let header;
      for (let i = 0; i < toc.chunkCount; i++) {
        const type = toc.chunkTypeName(i);
        if (type === 'ContainerHeader') {
          const bytes = await r.readChunk(i);
          header = parseContainerHeader(bytes, { source: rel });
          expect(Buffer.from(serializeContainerHeader(header)).equals(Buffer.from(bytes))).toBe(true);
          expect(header.containerId).toBe(toc.header.containerId);
        } else if (type === 'ExportBundleData') {
          packageIds.add(toc.chunkId(i).id);
        }
      }
      if (packageIds.size === 0) return; // the global container has no packages and no header
      expect(header).toBeDefined();
      expect(new Set(header!.packages.map((p) => p.packageId))).toEqual(packageIds);
      for (let i = 0; i < toc.chunkCount; i++) {
        if (toc.chunkTypeName(i) !== 'ExportBundleData') continue;
        const bytes = await r.readChunk(i);
        const entry = header!.packages.find((p) => p.packageId === toc.chunkId(i).id)!;
        const pkg = parseZenPackage(bytes, { source: `${rel}:${toc.chunkPath(i)}`, containerHeaderVersion: header!.version, storeEntry: entry });
        // The names whose hash differs (an expect per name had been a third of the file's time).
        expect(pkg.names.filter((n, k) => pkg.nameHashes[k] !== nameHash(n))).toEqual([]);
        // 5.3+ packages end with the 4-byte package tag; 5.0-5.2 ones (44-byte summary, as UE 5.1 wrote) do not.
        expect(pkg.headerSize + pkg.exportDataSize + (pkg.layout.summarySize === 52 ? 4 : 0)).toBe(bytes.length);
        // Versions that keep export counts in the store entry agree with the package.
        if (entry.exportCount !== undefined) {
          expect(entry.exportCount).toBe(pkg.exports.length);
          expect(entry.exportBundleCount).toBe(pkg.exportBundles.length);
        }
      }
    } finally {
      await r.close();
    }
  });
});
