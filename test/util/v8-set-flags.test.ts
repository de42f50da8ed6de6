import { describe, expect, it } from 'vitest';
import { runWithDistModule } from '../dist-child.js';

const child = (body: string, nodeArgs: string[] = []) => runWithDistModule('util/v8-set-flags.js', 'setV8Flags', body, nodeArgs);

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
