import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const module = JSON.stringify(join(root, 'dist', 'util', 'process-binding.js'));

/** Runs `body` in a fresh Node with processBinding imported. */
function child(body: string, nodeArgs: string[] = []) {
  const script = `const { processBinding } = await import(${module});\n${body}`;
  return spawnSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8' });
}

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

  it('is undefined for a binding this Node does not have', () => {
    const r = child(`console.log(String(processBinding('no_such_binding')));`);
    expect(r.stdout.trim()).toBe('undefined');
  });
});
