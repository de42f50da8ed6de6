import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath } from '../corpus.js';

const bin = resolve(__dirname, '../../bin/iostore.js');

describe('the iostore executable', () => {
  it('exits quietly when its reader closes the pipe early (| head)', () => {
    const r = spawnSync('bash', ['-c', `node ${bin} list ${corpusPath('ue5-wayoftheninja/WayOfTheNinja-Windows.utoc')} | head -1 > /dev/null; echo \${PIPESTATUS[0]}`], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('0');
  });

  it('prints one error line and exits 2 on bad input, 0 with --help', () => {
    const bad = spawnSync(process.execPath, [bin, 'info', corpusPath('README.md')], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/not a \.utoc file/);
    const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Commands:/);
  });
});
