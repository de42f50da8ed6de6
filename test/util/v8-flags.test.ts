import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const dist = (p: string) => JSON.stringify(join(root, 'dist', p));

/**
 * A flag kept `later` (unpack's --optimize-for-size) is not set until a worker has loaded its code: V8 counts it in
 * its flag hash, so set at once it made every code cache loaded after it (the loop workers') refused.
 */
describe('V8 flags kept for later', () => {
  it('leave code caches usable until setKeptV8Flags sets them', () => {
    const script = `
      const { keepV8Flag, keptV8Flags, setKeptV8Flags } = await import(${dist('util/v8-flags.js')});
      const vm = await import('node:vm');
      const src = 'function f(a) { return a + 1; } f(1);';
      const cachedData = new vm.Script(src, { filename: 'made.js' }).createCachedData();
      // Another name each time: a script compiled before is taken from V8's compilation cache, the data unread.
      let n = 0;
      const rejected = () => new vm.Script(src, { filename: \`read\${n++}.js\`, cachedData }).cachedDataRejected;
      keepV8Flag('--optimize-for-size', { later: true });
      const before = rejected();
      setKeptV8Flags();
      console.log(JSON.stringify({ before, after: rejected(), kept: keptV8Flags() }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n').pop()!);
    expect(out).toEqual({ before: false, after: true, kept: ['--optimize-for-size'] });
  });
});
