import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { parseAesKey } from '../../src/crypto/aes.js';
import { IoStoreError } from '../../src/errors.js';
import { CORPUS_AES_KEY_HEX, corpusPath } from '../corpus.js';

export const KEY = parseAesKey(CORPUS_AES_KEY_HEX);
export const WRONG_KEY = parseAesKey('00'.repeat(32));

export const P58 = 'ue5.8-cue4parse/paks/CUE4ParseFixtures-';
export const P60 = 'ue6.0-cue4parse/paks/CUE4ParseFixtures-';
export const P51 = 'ue5.1-patchtest/jh-patchtest-chunk1001/pakchunk1001-Windows.pak';
export const P51P = 'ue5.1-patchtest/jh-patchtest-chunk1001-p/pakchunk1001-Windows_0_P.pak';

export const bytesOf = (rel: string): Uint8Array => new Uint8Array(readFileSync(corpusPath(rel)));

/** Runs `f`, which must throw a one-line IoStoreError whose message mentions `mentions` (the file, usually). */
export function expectIoStoreError(f: () => unknown, code?: string, mentions = 'x.pak'): IoStoreError {
  let thrown: unknown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, 'expected an IoStoreError').toBeInstanceOf(IoStoreError);
  const err = thrown as IoStoreError;
  if (code) expect(err.code, err.message).toBe(code);
  expect(err.message).toContain(mentions);
  expect(err.message).not.toContain('\n');
  return err;
}
