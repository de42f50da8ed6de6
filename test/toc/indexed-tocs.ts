import { readFileSync } from 'node:fs';
import { mountPointRelative } from '../../src/toc/directory-index.js';
import { readToc, type IoStoreToc } from '../../src/toc/toc.js';
import { corpusFiles, corpusPath } from '../corpus.js';

/** Every corpus .utoc that opens without a key and has a directory index, with its mount point as a path prefix. */
export function* indexedCorpusTocs(): Generator<{ rel: string; toc: IoStoreToc; prefix: string }> {
  for (const rel of corpusFiles('.utoc')) {
    let toc: IoStoreToc;
    try {
      toc = readToc(new Uint8Array(readFileSync(corpusPath(rel))), { source: rel });
    } catch {
      continue; // encrypted, or a test vector that is not a TOC
    }
    if (toc.directoryIndex) yield { rel, toc, prefix: mountPointRelative(toc.mountPoint) };
  }
}
