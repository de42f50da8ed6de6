import { describe, expect, it } from 'vitest';
import { plural } from '../../src/util/plural.js';

describe('plural', () => {
  it('makes the plurals the regular expressions it had made (/[^aeiou]y$/ -> ies, /(s|x|ch|sh)$/ -> es)', () => {
    const old = (n: string) => (/[^aeiou]y$/.test(n) ? `${n.slice(0, -1)}ies` : /(s|x|ch|sh)$/.test(n) ? `${n}es` : `${n}s`);
    for (const noun of ['chunk', 'entry', 'key', 'y', 'ay', 'by', 'non-package file', 'class', 'box', 'patch', 'hash', 'pak', 'directory', 'alias', 'h', 'bush', 'x']) {
      expect(plural(1, noun)).toBe(`1 ${noun}`);
      expect(plural(2, noun), noun).toBe(`2 ${old(noun)}`);
    }
  });
});
