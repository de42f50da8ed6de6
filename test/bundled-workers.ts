/**
 * Set up before each test file (vitest.config.ts setupFiles): when the tests load the library from dist/ and the
 * worker bundles are current (IOSTORE_TEST_BUNDLED_WORKERS, set by vitest.config.ts), the library's worker threads
 * start from those bundles, as they do for the CLI and for the library loaded from src/ (runnableUrl in
 * src/util/worker-pool.ts): from dist/'s modules each worker cost ~3x the CPU time to start.
 */
if (process.env.IOSTORE_TEST_BUNDLED_WORKERS === '1') (globalThis as { __iostoreBundled?: boolean }).__iostoreBundled = true;
