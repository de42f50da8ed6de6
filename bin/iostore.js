#!/usr/bin/env node
// The `iostore` command: a thin shell over the compiled library (npm install builds dist/).
import { run } from '../dist/cli/main.js';

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`iostore: ${e?.message ?? e}\n`);
    process.exitCode = 2;
  },
);
