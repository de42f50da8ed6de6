import { describe, expect, it } from 'vitest';
import { Argv, commandSlots, findCommandName, parseArgs, wantsHelp } from '../../src/cli/args.js';
import { commandHelp } from '../../src/cli/help.js';
import { IoStoreError } from '../../src/errors.js';
import { corpusPath, hasCorpus } from '../corpus.js';
import { cli } from '../cli-helper.js';

const spec = () =>
  new Argv()
    .positional('paths', { type: 'string', array: true, describe: 'inputs' })
    .option('json', { type: 'boolean', describe: 'print JSON' })
    .option('csv', { type: 'boolean', describe: 'print CSV' })
    .option('sort', { choices: ['index', 'size'], default: 'index', describe: 'row order' })
    .option('threads', { type: 'number', describe: 'worker threads' })
    .option('offset', { type: 'number', describe: 'start' })
    .option('filter', { type: 'string', describe: 'glob' })
    .option('pak', { type: 'boolean', default: true, describe: 'write the .pak' })
    .option('size', { type: 'number', demandOption: true, describe: 'bytes' })
    .conflicts('json', 'csv');

const usage = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(IoStoreError);
    expect((e as IoStoreError).code).toBe('USAGE');
    return (e as Error).message;
  }
  throw new Error('no usage error');
};

describe('the argument parser', () => {
  it('reads options in every form yargs accepted, positionals around them, and applies defaults', () => {
    const a = parseArgs('list <paths..>', spec(), ['a.utoc', '--json', '--threads', '4', 'b.utoc', '--filter=**/x', '--no-pak', '--size', '0x10', '-q', '--offset', '-5']);
    expect(a).toMatchObject({ paths: ['a.utoc', 'b.utoc'], json: true, threads: 4, filter: '**/x', pak: false, size: 16, quiet: true, offset: -5, sort: 'index' });
    expect(parseArgs('list <paths..>', spec(), ['x', '--size=1', '--json', 'false', '--sort', 'size', '--', '--not-an-option'])).toMatchObject({ paths: ['x', '--not-an-option'], json: false, sort: 'size', pak: true });
    // Given twice: the last one wins.
    expect(parseArgs('list <paths..>', spec(), ['x', '--size', '1', '--size', '2']).size).toBe(2);
    expect(parseArgs('inspect <file> [package]', new Argv(), ['f.uasset'])).toMatchObject({ file: 'f.uasset' });
    expect(parseArgs('inspect <file> [package]', new Argv(), ['f.utoc', 'Hero'])).toMatchObject({ file: 'f.utoc', package: 'Hero' });
  });

  it('rejects what is wrong with one line naming it', () => {
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--size', '1', '--json', '--csv']))).toBe('--json and --csv cannot be used together (see: iostore list --help)');
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--size', '1', '--sort', 'name']))).toMatch(/^--sort must be one of index, size, not "name"/);
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--size', 'many']))).toMatch(/^--size takes a number, not "many"/);
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x']))).toMatch(/^--size is required/);
    expect(usage(() => parseArgs('list <paths..>', spec(), ['--size', '1']))).toMatch(/^missing <paths\.\.>: inputs/);
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--size', '1', '--frob']))).toMatch(/^unknown option --frob/);
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--size', '1', '--filter']))).toMatch(/^--filter needs a value/);
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--size', '1', '--filter', '--json']))).toMatch(/^--filter needs a value/);
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--size', '1', '--json=yes']))).toMatch(/^--json is a switch/);
    expect(usage(() => parseArgs('list <paths..>', spec(), ['x', '--size', '1', '-z']))).toMatch(/^unknown option -z/);
    expect(usage(() => parseArgs('pack <folder> <output>', new Argv(), ['a', 'b', 'c']))).toMatch(/^unexpected argument "c"/);
    expect(usage(() => parseArgs('pack <folder> <output>', new Argv(), ['a']))).toMatch(/^missing <output>/);
  });

  it('finds the command past global options and their values, and --help before a --', () => {
    expect(findCommandName(['--oodle-lib', 'lib.so', 'list', 'x'])).toEqual({ name: 'list', at: 2 });
    expect(findCommandName(['--verbose', '--oodle-lib=lib.so', 'info'])).toEqual({ name: 'info', at: 2 });
    expect(findCommandName(['--verbose'])).toBeUndefined();
    expect(wantsHelp(['list', 'x', '-h'])).toBe(true);
    expect(wantsHelp(['list', '--', '--help'])).toBe(false);
    expect(commandSlots('inspect <file> [package]').slots).toEqual([
      { name: 'file', required: true, variadic: false },
      { name: 'package', required: false, variadic: false },
    ]);
  });

  it('renders help with every option, its choices and default', () => {
    const text = commandHelp('list <paths..>', 'List chunks', spec().usage('$0 list <input..>\n\nLists\nthings.'), 80);
    expect(text).toMatch(/^iostore list <input\.\.>\n\nLists things\.\n/);
    for (const o of ['--json', '--csv', '--sort <index|size>', '--threads <n>', '--no-pak', '--verbose', '-q, --quiet', '-h, --help']) expect(text).toContain(o);
    expect(text).toContain('[default: index]');
    expect(Math.max(...text.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
  });

  it('exits 2 with one line for usage errors of the whole CLI, 0 with help', async () => {
    for (const args of [[], ['lsit', 'x'], ['list'], ['list', 'x.utoc', '--json', '--csv'], ['unpack', 'x', '--jobs', 'many']]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    expect((await cli('lsit')).err).toMatch(/did you mean list\?/);
    const h = await cli('pack', '--help');
    expect(h.code).toBe(0);
    expect(h.out).toContain('--no-pak');
  });
});
