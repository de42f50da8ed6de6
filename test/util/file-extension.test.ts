import { describe, expect, it } from 'vitest';
import { hasExtension, withoutExtension } from '../../src/util/file-extension.js';

// Names that a case-insensitive regular expression without the u flag tells apart from ASCII letters though they
// change case into them (Kelvin sign, long s, dotted and dotless i), and the usual ones.
const NAMES = ['a.pak', 'A.PAK', 'x.Pak', '.pak', 'pak', 'a.pakx', 'a.pa\u212a', '\u017f.pak', 'a.ucas', 'b.UCAS', 'c.uca\u017f', 'd_s1.ucas', 'e.utoc', 'F.UTOC', 'g.utoc.bak', 'h.\u0130toc', '', 'a:pak', 'a.ut0c'];

describe('hasExtension and withoutExtension', () => {
  it('tell what /\\.ext$/i tells, and strip what its replace strips', () => {
    for (const [ext, re] of [['.pak', /\.pak$/i], ['.ucas', /\.ucas$/i], ['.utoc', /\.utoc$/i]] as const) {
      for (const name of NAMES) {
        expect(hasExtension(name, ext), `${name} ${ext}`).toBe(re.test(name));
        expect(withoutExtension(name, ext), `${name} ${ext}`).toBe(name.replace(re, ''));
      }
    }
  });
});
