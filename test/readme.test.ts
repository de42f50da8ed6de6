import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('the README', () => {
  it('starts with the install-and-demo command and the test command', () => {
    const first = README.split('\n').slice(0, 8).join('\n');
    expect(first).toMatch(/npm ci && npm run demo/);
    expect(first).toMatch(/npm test/);
  });

  it("library example is examples/library.mjs as it stands, and it runs as written on the bundled sample", () => {
    const example = readFileSync(join(ROOT, 'examples/library.mjs'), 'utf8');
    expect(README).toContain('```js\n' + example + '```');
    // The package imports itself by name (package.json "exports"), as a user's project would import it.
    const out = execFileSync(process.execPath, ['examples/library.mjs'], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toContain('6 chunks, mount point ../../../');
    expect(out).toContain('/Game/Demo/Hello 1 export(s)');
    expect(out).toContain('verified 6/6, 0 mismatch(es)');
    expect(out).toMatch(/packed 6 chunks into .*Rebuilt\.utoc/);
  });
});
