// Whether a build step's outputs are current. The step records what it was built from in a stamp file beside its
// outputs (for each input, the number of its files, their newest modification time and their total size; and values
// such as the Node version) and skips its work when they are all the same on the next build: `npm test` builds first,
// and with nothing changed (after `npm ci`, or an earlier `npm test`) a rebuild had taken ~8 s of a quiet machine.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function walk(path, keep, acc) {
  const st = statSync(path);
  if (st.isDirectory()) {
    for (const e of readdirSync(path)) walk(join(path, e), keep, acc);
  } else if (!keep || keep(path)) {
    acc.files++;
    acc.newest = Math.max(acc.newest, st.mtimeMs);
    acc.bytes += st.size;
  }
}

/**
 * The signature of `inputs` (files or folders, each with an optional `keep(path)` filter on the files below it) and
 * of `values`, as the stamp holds it.
 */
export function signature(inputs, values = []) {
  const parts = inputs.map(({ path, keep }) => {
    const acc = { files: 0, newest: 0, bytes: 0 };
    if (existsSync(path)) walk(path, keep, acc);
    return [path, acc.files, acc.newest, acc.bytes];
  });
  return `${JSON.stringify([...parts, ...values], null, 1)}\n`;
}

/** Whether every output exists and the stamp holds this signature. */
export function isCurrent(stamp, sig, outputs) {
  return outputs.every((o) => existsSync(o)) && existsSync(stamp) && readFileSync(stamp, 'utf8') === sig;
}

/** Records that the outputs were built from what `sig` describes (once they are complete). */
export function markCurrent(stamp, sig) {
  writeFileSync(stamp, sig);
}
