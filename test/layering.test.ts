/**
 * Imports flow down: each folder of src/ may import only from folders of a lower rank (and from itself). A folder
 * that needs something of a sibling or of a stage above it is a sign the fact belongs lower down.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const RANK: Record<string, number> = {
  util: 0,
  hash: 1,
  crypto: 1,
  codecs: 1,
  toc: 2,
  cas: 3,
  pak: 3,
  zen: 3,
  classic: 3,
  locres: 3,
  shaders: 3,
  usmap: 3,
  legacy: 4,
  inspect: 4,
  layout: 4,
  mount: 5,
  chunks: 5,
  convert: 6,
  verify: 6,
  unpack: 6,
  pack: 7,
  props: 7,
  cli: 8,
  web: 8,
  'index.ts': 8,
};

const SRC = join(import.meta.dirname, '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** `zen` for src/zen/x.ts; src/errors.ts (the one error type) is part of the foundation with util/. */
const stageOf = (file: string): string => {
  const top = relative(SRC, file).split(/[\\/]/)[0]!;
  return top === 'errors.ts' ? 'util' : top;
};

describe('layering', () => {
  const files = sourceFiles(SRC);

  it('every folder of src/ has a rank', () => {
    expect([...new Set(files.map(stageOf))].filter((s) => RANK[s] === undefined)).toEqual([]);
  });

  it('no import reaches a sibling or a stage above', () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = stageOf(file);
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:from\s+|import\(\s*)['"](\.\.?\/[^'"]+)['"]/g)) {
        const target = normalize(join(dirname(file), m[1]!)).replace(/\.js$/, '.ts');
        const to = stageOf(target);
        if (to !== from && !(RANK[to]! < RANK[from]!)) upward.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('the check sees real imports (pack reads the manifest from layout/)', () => {
    const pack = readFileSync(join(SRC, 'pack', 'pack.ts'), 'utf8');
    expect(pack).toMatch(/from '\.\.\/layout\/manifest\.js'/);
  });
});
