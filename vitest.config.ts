import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
    // Vitest's default (one fewer than the cores) ran the suite in a single process on a 2-core machine: 127 s.
    // Much of the suite waits on child processes, Chromium and the file system, so two processes there took 65 s.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
