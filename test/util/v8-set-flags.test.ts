import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const module = JSON.stringify(join(root, 'dist', 'util', 'v8-set-flags.js'));

/** Runs `body` in a fresh Node (flags are the process's: never set in the test runner's own) with setV8Flags imported. */
function child(body: string, nodeArgs: string[] = []) {
  const script = `const { setV8Flags } = await import(${module});\n${body}`;
  return spawnSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8' });
}

describe('setV8Flags', () => {
  it('sets a flag at run time through Node binding, without node:v8 and without a warning', () => {
    const r = child(`
      const had = 'noDeprecation' in process;
      let before = 'parsed';
      try { new Function('return %IsBeingInterpreted()'); } catch (e) { before = e.name; }
      setV8Flags('--allow-natives-syntax');
      // V8's parser takes natives syntax once the flag is set.
      new Function('return %IsBeingInterpreted()');
      console.log(JSON.stringify({ before, had, has: 'noDeprecation' in process, v8: process.moduleLoadList.includes('NativeModule v8') }));
    `);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ before: 'SyntaxError', had: false, has: false, v8: false });
  });

  it("leaves the process's own deprecation settings as they were", () => {
    const r = child(`setV8Flags('--allow-natives-syntax'); console.log(String(process.noDeprecation)); process.binding('v8');`, ['--no-deprecation']);
    expect(r.stdout.trim()).toBe('true');
    expect(r.stderr).toBe('');
  });
});
