import { describe, expect, it } from 'vitest';
import { ProgressBar } from '../../src/cli/progress.js';

const io = () => {
  const o = { err: '', out: '', isTTY: true };
  return { o, io: { out: (t: string) => (o.out += t), err: (t: string) => (o.err += t), isTTY: true } };
};

describe('ProgressBar', () => {
  it('draws on stderr when enabled, ends with a newline, never touches stdout', () => {
    const { o, io: sink } = io();
    const bar = new ProgressBar(sink, 'unpack', true);
    bar.update({ chunksDone: 512, chunksTotal: 512, bytesDone: 100, bytesTotal: 100 });
    bar.done();
    expect(o.err).toMatch(/^\runpack \[=+\] 100% 512\/512 chunks/);
    expect(o.err.endsWith('\n')).toBe(true);
    expect(o.out).toBe('');
  });

  it('draws nothing when disabled (not a terminal, --quiet, --json)', () => {
    const { o, io: sink } = io();
    const bar = new ProgressBar(sink, 'unpack', false);
    bar.update({ chunksDone: 1, chunksTotal: 2, bytesDone: 1, bytesTotal: 2 });
    bar.done();
    expect(o.err).toBe('');
  });

  it('redraws at most ten times a second until the end', () => {
    const { o, io: sink } = io();
    const bar = new ProgressBar(sink, 'x', true);
    for (let i = 1; i <= 1000; i++) bar.update({ chunksDone: i, chunksTotal: 1000, bytesDone: i, bytesTotal: 1000 });
    expect(o.err.split('\r').length - 1).toBeLessThanOrEqual(3);
    expect(o.err).toContain('1000/1000');
  });
});
