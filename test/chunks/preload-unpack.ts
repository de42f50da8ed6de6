import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { tempDir } from '../tmp.js';

const root = resolve(__dirname, '../..');

/** An event line a preload wrote to stderr: on which thread, and what. */
export interface ThreadEvent {
  main: boolean;
  event: string;
}

/**
 * Unpacks (the CLI, `--quiet`) a synthetic container of `chunks` one-block chunks of `rawSize` bytes with `preload`
 * (a CommonJS preload's text, which writes one JSON event a line to stderr), `env` added to this process's, and returns
 * the container and the events.
 */
export async function unpackWithPreload(chunks: number, rawSize: number, preload: string, env: NodeJS.ProcessEnv = {}): Promise<{ utoc: string; events: ThreadEvent[] }> {
  const tmp = tempDir();
  // @ts-expect-error plain JS module
  const { writeSyntheticContainer } = await import('../../scripts/synth.mjs');
  const { utoc } = await writeSyntheticContainer(tmp, 'Many-Windows', { chunks, blocksPerChunk: 1, rawSize });
  const file = join(tmp, 'preload.cjs');
  writeFileSync(file, preload);
  const r = spawnSync(process.execPath, ['--require', file, join(root, 'bin', 'iostore.js'), 'unpack', utoc, join(tmp, 'out'), '--quiet'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
  expect(r.status).toBe(0);
  return { utoc, events: r.stderr.trim().split('\n').map((l) => JSON.parse(l) as ThreadEvent) };
}
