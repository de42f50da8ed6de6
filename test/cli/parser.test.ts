import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Argv, parseArgs } from '../../src/cli/args.js';
import { commandHelp } from '../../src/cli/help.js';
import { engineOption } from '../../src/cli/options.js';
import { IoStoreError } from '../../src/errors.js';
import { cli } from '../cli-helper.js';
import { tempDir } from '../tmp.js';

const spec = () =>
  new Argv()
    .positional('paths', { type: 'string', array: true })
    .option('json', { type: 'boolean', describe: 'print JSON' })
    .option('filter', { type: 'string', describe: 'glob' })
    .option('pak', { type: 'boolean', default: true, describe: 'write the .pak' })
    .option('engine', engineOption('engine release'));

const usage = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect((e as IoStoreError).code).toBe('USAGE');
    return (e as Error).message;
  }
  throw new Error('no usage error');
};

describe('the argument parser: typos, aliases, --opt=value and --no-opt', () => {
  it('an option typo gets "did you mean" (a name, an alias or a negated switch)', () => {
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--jsno']))).toBe('unknown option --jsno; did you mean --json? (see: iostore list --help)');
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--fliter', '*']))).toMatch(/^unknown option --fliter; did you mean --filter\?/);
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--versoin', 'UE5_4']))).toMatch(/did you mean --version\?/);
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--no-pka']))).toMatch(/did you mean --no-pak\?/);
    // Nothing near: no guess.
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--frobnicate']))).toBe('unknown option --frobnicate (see: iostore list --help)');
  });

  it('--opt=value, --opt value, --no-opt and --opt=false all work; --version answers for --engine under its name', () => {
    expect(parseArgs('list <paths..>', spec(), ['x', '--filter=**/a=b', '--no-pak', '--json=false'])).toMatchObject({ filter: '**/a=b', pak: false, json: false });
    expect(parseArgs('list <paths..>', spec(), ['x', '--pak=true', '--json'])).toMatchObject({ pak: true, json: true });
    expect(parseArgs('list <paths..>', spec(), ['x', '--version', 'UE5_6'])).toMatchObject({ engine: 'UE5_6' });
    expect(parseArgs('list <paths..>', spec(), ['x', '--version=UE5_6'])).toMatchObject({ engine: 'UE5_6' });
    expect(parseArgs('list <paths..>', spec(), ['x', '--engine', 'UE5_7']).version).toBeUndefined();
    // A message names the option as it was written.
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--version']))).toMatch(/^--version needs a value/);
    expect(commandHelp('list <paths..>', 'List', spec(), 100)).toContain('--engine, --version <value>');
  });

  it('iostore --version prints the version wherever it stands without a command', async () => {
    for (const args of [['--version'], ['-V'], ['--verbose', '--version']]) {
      const r = await cli(...args);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^\d+\.\d+\.\d+\n$/);
    }
  });
});

/** The built CLI (npm test builds first): the completion command loads every command, cheaper in bundles. */
const iostore = (...args: string[]) => spawnSync(process.execPath, [resolve(__dirname, '../../bin/iostore.js'), ...args], { encoding: 'utf8' });

describe('iostore completion', () => {
  const bash = iostore('completion', 'bash');

  it('bash: completes commands, options (with aliases) and option values', () => {
    expect(bash.status).toBe(0);
    const file = join(tempDir(), 'iostore.bash');
    writeFileSync(file, bash.stdout);
    const complete = (...words: string[]): string[] => {
      const script = `source ${JSON.stringify(file)}; COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _iostore; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const p = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
      expect(p.stderr).toBe('');
      return p.stdout.split('\n').filter(Boolean).sort();
    };
    expect(complete('iostore', 'to')).toEqual(['to-legacy', 'to-zen']);
    expect(complete('iostore', 'list', 'x.utoc', '--js')).toEqual(['--json']);
    expect(complete('iostore', 'list', 'x.utoc', '--sort', '')).toEqual(['index', 'path', 'size', 'type']);
    expect(complete('iostore', '--oodle-lib', 'lib.so', 'to-zen', '--no-p')).toEqual(['--no-pak']);
    expect(complete('iostore', 'to-legacy', 'x', '--vers')).toEqual(['--version']);
  });

  it('every command that takes an engine release takes it as --engine and as --version', () => {
    const withEngine = [...bash.stdout.matchAll(/^ {4}([a-z-]+)\) opts='([^']*)'/gm)].filter(([, , opts]) => / --engine --version /.test(` ${opts} `)).map(([, name]) => name);
    expect(withEngine).toEqual(['info', 'list', 'unpack', 'verify', 'pack', 'inspect', 'to-zen', 'to-legacy', 'props']);
    // Nowhere else a --version of another meaning: the option-value list and the tool's own at the top level.
    expect(bash.stdout.match(/--version\b/g)!.length).toBe(withEngine.length + 2);
  });

  it('zsh, fish and powershell scripts name every command; an unknown shell is refused', () => {
    for (const shell of ['zsh', 'fish', 'powershell']) {
      const r = iostore('completion', shell);
      expect(r.status, shell).toBe(0);
      for (const c of ['info', 'list', 'unpack', 'verify', 'pack', 'inspect', 'to-zen', 'to-legacy']) expect(r.stdout, `${shell} ${c}`).toContain(c);
      expect(r.stdout).toContain('--aes-key');
    }
    const bad = iostore('completion', 'tcsh');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('iostore: <shell> must be one of bash, zsh, fish, powershell, not "tcsh" (see: iostore completion --help)\n');
  });
});
