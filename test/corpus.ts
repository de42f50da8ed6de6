import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** The shared corpus of engine-made files, read in place (never copied into the project). */
export const CORPUS = resolve(__dirname, '../../shared/corpus');

export function corpusPath(...parts: string[]): string {
  return join(CORPUS, ...parts);
}

export const hasCorpus = existsSync(CORPUS);

/** Every file under the corpus whose name ends with `ext`, as paths relative to the corpus root, sorted. */
export function corpusFiles(ext: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e.endsWith(ext)) out.push(relative(CORPUS, p));
    }
  };
  if (hasCorpus) walk(CORPUS);
  return out.sort();
}

/** The fixture AES key of the encrypted corpus containers (published in the corpus README). */
export const CORPUS_AES_KEY_HEX = '435545345061727365466978747572654145534B657930313233343536373839';
