import { describe, expect, it } from 'vitest';
import { runWithDistModule } from '../dist-child.js';

const child = (body: string, nodeArgs: string[] = []) => runWithDistModule('util/process-binding.js', 'processBinding', body, nodeArgs);

describe('processBinding', () => {
  it("reaches Node's tty binding without node:tty, and without a warning even under --pending-deprecation", () => {
    const r = child(
      `const tty = processBinding('tty_wrap');
      console.log(JSON.stringify({ isTTY: typeof tty?.isTTY, pipe: tty.isTTY(1), has: 'noDeprecation' in process, loaded: process.moduleLoadList.filter((m) => /NativeModule (tty|net)$/.test(m)) }));`,
      ['--pending-deprecation'],
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ isTTY: 'function', pipe: false, has: false, loaded: [] });
  });

  it("holds a deprecated binding's warning back without Node's emitWarning (~1.4 KB of source a short run would compile), and puts it back", () => {
    // process.binding('v8') is deprecated at run time: Node calls process.emitWarning for it, once a process.
    const r = child(
      `let calls = 0;
      const mine = () => { calls++; };
      process.emitWarning = mine;
      const v8 = processBinding('v8');
      console.log(JSON.stringify({ set: typeof v8?.setFlagsFromString, calls, back: process.emitWarning === mine }));`,
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ set: 'function', calls: 0, back: true });
  });

  it('is undefined for a binding this Node does not have', () => {
    const r = child(`console.log(String(processBinding('no_such_binding')));`);
    expect(r.stdout.trim()).toBe('undefined');
  });
});
