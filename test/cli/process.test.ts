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

  // A reader may hand the CLI a non-blocking descriptor (the flag belongs to the open file, shared with whoever made
  // it): a full pipe makes the CLI's blocking writes fail with EAGAIN, and the rest goes through a stream. Ending the
  // process as soon as the command was done cut such output at the pipe's ~60 KB, with exit code 0. Node's own
  // spawn makes a child's standard descriptors blocking, so the pipe is made by python here.
  it.skipIf(process.platform === 'win32' || spawnSync('python3', ['-c', '0']).status !== 0)('writes all of its output to a slow reader of a non-blocking pipe', () => {
    const utoc = corpusPath('ue5-wayoftheninja/WayOfTheNinja-Windows.utoc');
    const whole = spawnSync(process.execPath, [bin, 'list', utoc, '--json'], { maxBuffer: 1 << 26 }).stdout;
    expect(whole.length).toBeGreaterThan(1 << 20);
    const reader = [
      'import fcntl, os, subprocess, sys, time',
      'r, w = os.pipe()',
      'fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)',
      'p = subprocess.Popen(sys.argv[1:], stdout=w)',
      'os.close(w)',
      'time.sleep(0.8)',
      'data = b""',
      'while True:',
      '    b = os.read(r, 1 << 16)',
      '    if not b: break',
      '    data += b',
      'sys.stdout.buffer.write(data)',
      'sys.exit(p.wait())',
    ].join('\n');
    const r = spawnSync('python3', ['-c', reader, process.execPath, bin, 'list', utoc, '--json'], { maxBuffer: 1 << 26 });
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBe(whole.length);
    expect(r.stdout.equals(whole)).toBe(true);
  });
});
