import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath, hasCorpus } from '../corpus.js';
import { tempDir } from '../tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin', 'iostore.js');

/** Runs the CLI with stdout on `out` (a path opened for writing, or 'pipe') and a preload that prints the built-in modules the run loaded. */
function run(args: string[], out: string) {
  const dir = tempDir('iostore-io-');
  const preload = join(dir, 'modules.cjs');
  writeFileSync(preload, "process.on('exit', () => require('node:fs').writeSync(2, 'MODULES ' + process.moduleLoadList.join(',') + '\\n'));\n");
  const fd = out === 'pipe' ? undefined : openSync(out, 'w');
  try {
    const r = spawnSync(process.execPath, ['-r', preload, bin, ...args], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', fd ?? 'pipe', 'pipe'] });
    expect(r.status, r.stderr).toBe(0);
    return { modules: r.stderr.match(/MODULES (.*)/)![1]!.split(','), stdout: r.stdout, stderr: r.stderr.replace(/MODULES .*\n/, '') };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

describe.skipIf(!hasCorpus)('the standard streams of a short run', () => {
  const utoc = corpusPath('ue5.1-templeofgiants/Colliderproject-Windows.utoc');

  it('list into /dev/null, a file or a pipe loads neither node:tty nor net nor the stream modules', () => {
    const file = join(tempDir('iostore-io-'), 'list.txt');
    const piped = run(['list', utoc], 'pipe');
    for (const [where, r] of [['/dev/null', run(['list', utoc], '/dev/null')], ['a file', run(['list', utoc], file)], ['a pipe', piped]] as const) {
      // /dev/null is a character device, as a terminal is: telling them apart took node:tty, which loads net and the
      // streams (~14 ms of a 3,000-chunk list).
      for (const m of ['NativeModule tty', 'NativeModule net', 'NativeModule stream']) expect(r.modules, `${where}: ${m}`).not.toContain(m);
      expect(r.stderr, where).toBe('');
    }
    // The whole table, as for a pipe: not fitted to a terminal.
    expect(readFileSync(file, 'utf8')).toBe(piped.stdout);
    expect(piped.stdout).not.toContain('KiB');
  });
});
