import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..');

/**
 * Runs `body` in a fresh Node (process-wide state such as V8's flags never set in the test runner's own) with
 * `names` imported from the built module `dist/<module>`.
 */
export function runWithDistModule(module: string, names: string, body: string, nodeArgs: string[] = []) {
  const script = `const { ${names} } = await import(${JSON.stringify(join(root, 'dist', module))});\n${body}`;
  return spawnSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8' });
}
