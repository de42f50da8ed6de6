/** The page bundle's check for Node globals (scripts/web-bundle.mjs, run by the web build). */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript
import { nodeGlobalsIn } from '../../scripts/web-bundle.mjs';
import { tempDir } from '../tmp.js';

const check = nodeGlobalsIn as (entry: string) => Promise<string[]>;

describe('page bundle: no Node globals', () => {
  it('the page as built reaches none', async () => {
    expect(await check(resolve(__dirname, '../../src/web/app.ts'))).toEqual([]);
  });

  it('names each global a module uses, and not locals or properties of the same name', async () => {
    const dir = tempDir('iostore-bundle-');
    const lib = resolve(__dirname, '../../src/util/bytes.ts');
    writeFileSync(join(dir, 'used.ts'), [
      `import { toHex } from ${JSON.stringify(lib)};`,
      'export const a = (x: Uint8Array) => x instanceof Buffer;',
      'export const b = () => process.env.HOME + __dirname;',
      'export const c = (n: string) => typeof require === "function" ? n : toHex(new Uint8Array(1));',
      'export const d = (o: { Buffer: number }) => { const process = 1; return o.Buffer + process; };',
    ].join('\n'));
    const found = await check(join(dir, 'used.ts'));
    expect(found.map((l) => l.replace(/ in .*/, ''))).toEqual([expect.stringMatching(/used\.ts: Buffer$/), expect.stringMatching(/used\.ts: process$/), expect.stringMatching(/used\.ts: __dirname$/), expect.stringMatching(/used\.ts: require$/)]);
  });
});
