import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../tmp.js';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin', 'iostore.js');
const utoc = join(root, 'samples', 'demo', 'DemoMod-Windows.utoc');

/**
 * A preload that records the calls of a short run which compile more of Node's own source on their first call:
 * readFileSync other than UTF-8 (its generic path and helpers; UTF-8 is Node's native fast path, which Node itself
 * takes for the main file) and a Buffer made from or into text with an encoding named (getEncodingOps).
 */
const PRELOAD = `
const fs = require('node:fs');
const seen = [];
const readFileSync = fs.readFileSync;
fs.readFileSync = function (path, options) {
  const enc = typeof options === 'string' ? options : options?.encoding;
  if (enc !== 'utf8' && enc !== 'utf-8') seen.push('readFileSync ' + String(path).split(/[\\\\/]/).pop());
  return readFileSync.apply(this, arguments);
};
const from = Buffer.from;
Buffer.from = function (value, encoding) {
  if (typeof value === 'string' && typeof encoding === 'string') seen.push('Buffer.from ' + encoding);
  return from.apply(this, arguments);
};
const toString = Buffer.prototype.toString;
Buffer.prototype.toString = function (encoding) {
  if (typeof encoding === 'string') seen.push('toString ' + encoding);
  return toString.apply(this, arguments);
};
process.on('exit', () => fs.writeSync(2, 'seen: ' + JSON.stringify(seen) + '\\n'));
`;

describe("a short list or info compiles no more of Node's source than it needs", () => {
  it('reads its bundle and code cache without readFileSync, and makes no Buffer from text with an encoding named', () => {
    const preload = join(tempDir('iostore-short-start-'), 'preload.cjs');
    writeFileSync(preload, PRELOAD);
    for (const args of [['list'], ['list', '--json'], ['list', '--csv'], ['info'], ['info', '--json']]) {
      const r = spawnSync(process.execPath, ['-r', preload, bin, ...args, utoc], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr, args.join(' ')).toBe('seen: []\n');
    }
  });
});
