import { existsSync, readFileSync } from 'node:fs';
import { defaultCodecs, fromHex, readPak, readPakEntryBlocks, readPakEntryData } from '../../src/index.js';
import { parseLegacyEngineRelease, type LegacyEngineRelease } from '../../src/legacy/index.js';
import { CORPUS_AES_KEY_HEX, corpusFiles, corpusPath } from '../corpus.js';

export const readCorpus = (rel: string): Uint8Array => new Uint8Array(readFileSync(corpusPath(rel)));

const cache = new Map<string, Map<string, Uint8Array>>();

/** Every file of a corpus pak by its path under the mount point, decoded (Zlib and Oodle through the codec registry). */
export function pakFiles(rel: string): Map<string, Uint8Array> {
  const hit = cache.get(rel);
  if (hit) return hit;
  const bytes = readCorpus(rel);
  const aesKey = fromHex(CORPUS_AES_KEY_HEX);
  const pak = readPak(bytes, { source: rel, aesKey });
  const codecs = defaultCodecs();
  const out = new Map<string, Uint8Array>();
  for (const e of pak.entries) {
    if (e.compressionMethodIndex === 0) {
      out.set(e.path, readPakEntryData(bytes, pak, e, { aesKey }));
      continue;
    }
    const codec = codecs.require(e.compressionMethod);
    const blocks = readPakEntryBlocks(bytes, pak, e, { aesKey });
    const data = new Uint8Array(e.uncompressedSize);
    let at = 0;
    for (const b of blocks) {
      const n = Math.min(e.compressionBlockSize, e.uncompressedSize - at);
      data.set(codec.decompress(b, n), at);
      at += n;
    }
    out.set(e.path, data);
  }
  cache.set(rel, out);
  return out;
}

export const LEGACY_PAK_VARIANTS = ['Uncompressed', 'Zlib', 'Oodle', 'OodleEncrypted'] as const;
export const legacyPak = (engine: 'ue5.8' | 'ue6.0', variant: (typeof LEGACY_PAK_VARIANTS)[number] = 'Uncompressed') =>
  `${engine}-cue4parse/paks/CUE4ParseFixtures-Legacy-Tagged-${variant}.pak`;

/** A package of `legacy-games/`: its folder, the engine release the folder's name gives, and its files. */
export interface LegacyGamesPackage {
  /** Path below the corpus root, e.g. `legacy-games/ue4.18-bloodstained/m01SIP_000_BG.umap`. */
  rel: string;
  /** The release folder, e.g. `ue4.18-bloodstained`. */
  folder: string;
  /** The release as the CLI and library name it, e.g. `UE4_18`. */
  release: LegacyEngineRelease;
  /** Path below the corpus root of the `.uexp` beside it, when there is one. */
  uexp?: string;
}

/** Every `.uasset`/`.umap` under `legacy-games/` (enumerated, so new folders are picked up), with its folder's release. */
export function legacyGamesPackages(): LegacyGamesPackage[] {
  const all = [...corpusFiles('.uasset'), ...corpusFiles('.umap')].filter((f) => f.startsWith('legacy-games/')).sort();
  return all.map((rel) => {
    const folder = rel.split('/')[1]!;
    const m = /^ue(\d+)\.(\d+)/.exec(folder);
    if (!m) throw new Error(`legacy-games/${folder}: the folder name gives no engine release`);
    const release = parseLegacyEngineRelease(`UE${m[1]}_${m[2]}`);
    const uexp = rel.replace(/\.[^.]+$/, '.uexp');
    return existsSync(corpusPath(uexp)) ? { rel, folder, release, uexp } : { rel, folder, release };
  });
}
