import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

/**
 * A fresh temporary folder, removed after the test that asked for it or, asked for outside a test, after the file's
 * tests. (An afterAll registered from inside a running test never runs: that had left ~17 folders per suite run.)
 * Do not call it from a beforeAll: neither hook registered from there runs; ask for it in the describe body.
 */
export function tempDir(prefix = 'iostore-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(d, { recursive: true, force: true });
  try {
    onTestFinished(remove);
  } catch {
    afterAll(remove);
  }
  return d;
}

/** Every file below `dir`, as sorted `/`-separated relative paths. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** Paths named `name` in a new subfolder of `root` each call, so outputs never collide. */
export function freshPaths(root: string): (name: string) => string {
  let n = 0;
  return (name) => {
    const d = join(root, `${n++}`);
    mkdirSync(d, { recursive: true });
    return join(d, name);
  };
}

/**
 * Temporary names (`*.iostore-tmp`) below `dir`, once none is left or `timeoutMs` passed: an interrupted command
 * hands its staged output folder to a detached process, which removes it after the command exited
 * (src/cli/detached-removal.ts).
 */
export async function temporariesLeft(dir: string, timeoutMs = 20_000): Promise<string[]> {
  const walk = (d: string): string[] => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return [];
    }
    return entries.flatMap((e) => (e.name.endsWith('.iostore-tmp') ? [join(d, e.name)] : e.isDirectory() ? walk(join(d, e.name)) : []));
  };
  const until = Date.now() + timeoutMs;
  for (;;) {
    const left = walk(dir);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((r) => setTimeout(r, 20));
  }
}
