import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { IoStoreError } from '../../errors.js';
import { findPackageChunk, loadScriptObjects, packageNamesFromToc } from '../../inspect/context.js';
import { writeFileAtomic } from '../../layout/output.js';
import { isLegacyPackage } from '../../legacy/package.js';
import { packageNameFromContentPath } from '../../legacy/paths.js';
import { mountEntry } from '../../mount/mount.js';
import { openContainer } from '../../mount/open.js';
import { applyLegacyProps, applyZenProps, readLegacyProps, readZenProps, type PackagePropsJson, type PackagePropsResult, type ReadPropsOptions } from '../../props/index.js';
import { renderProps } from '../../props/render.js';
import { parseEngineVersion } from '../../toc/engine.js';
import { ioError } from '../../toc/read-file.js';
import { parseUsmap } from '../../usmap/index.js';
import { quote } from '../../util/quote.js';
import type { Command } from '../command.js';
import { renderJson } from '../format.js';
import { ExitCode } from '../io.js';
import { cliCodecs, keyRing, withKeyOptions, type KeyArgs } from '../keys.js';
import { engineOption } from '../options.js';
import { hasExtension } from '../../util/file-extension.js';

interface PropsArgs extends KeyArgs {
  file: string;
  package?: string;
  out?: string;
  usmap?: string;
  json?: boolean;
  apply?: string;
  engine?: string;
  global?: string;
}

const readBytes = async (path: string) => new Uint8Array(await readFile(path).catch((e) => { throw ioError(e, path); }));
const uexpOf = (file: string) => file.replace(/\.[^./\\]+$/, '.uexp');

export const propsCommand: Command<PropsArgs> = {
  command: 'props <file> [package] [out]',
  describe: "Show the properties of a package's exports (tagged or unversioned, with a .usmap), as a tree or JSON; --apply writes an edited JSON back",
  builder: (y) =>
    withKeyOptions(y)
      .positional('file', { type: 'string', demandOption: true, describe: 'a package (.uasset/.umap, legacy with its .uexp beside it, or zen) or a .utoc' })
      .positional('package', { type: 'string', describe: 'with a .utoc: the package path (or its tail); with --apply on a package file: the output file' })
      .positional('out', { type: 'string', describe: 'with a .utoc and --apply: the output file (the zen package)' })
      .option('usmap', { type: 'string', describe: 'type mappings (.usmap) for unversioned packages' })
      .option('json', { type: 'boolean', describe: 'print the JSON form (docs/props-json.md) instead of the tree' })
      .option('apply', { type: 'string', describe: 'an edited JSON (from --json) to write into the package; writes <out> (and its .uexp beside it for legacy packages)' })
      .option('engine', engineOption('engine release of unversioned packages (e.g. UE4_27, UE5_3) when their bytes cannot tell'))
      .option('global', { type: 'string', describe: 'global.utoc for the script classes of zen packages (default: the one beside the .utoc)' })
      .example('$0 props DT_Items.uasset --json > items.json', 'a legacy package (DT_Items.uexp beside it)')
      .example('$0 props pakchunk0-Windows.utoc Data/DT_Items.uasset --usmap Game.usmap', 'a package inside a container')
      .example('$0 props --apply items.json DT_Items.uasset out/DT_Items.uasset', 'write the edited values: out/DT_Items.uasset and .uexp') as never,
  async run(args, io) {
    const o: ReadPropsOptions = {};
    if (args.engine !== undefined) o.engine = parseEngineVersion(args.engine);
    if (args.usmap !== undefined) o.mappings = parseUsmap(await readBytes(args.usmap), { source: args.usmap });
    const show = (r: PackagePropsResult): number => {
      for (const w of r.warnings) io.err(`iostore: ${w}\n`);
      io.out(args.json ? renderJson(r.json) : renderProps(r.json));
      return ExitCode.Ok;
    };
    const edited = args.apply === undefined ? undefined : await readEdited(args.apply);

    if (hasExtension(args.file, '.utoc')) {
      if (args.package === undefined) throw new IoStoreError('USAGE', 'name the package inside the container (its path or the tail of it)', { file: args.file });
      if (edited && args.out === undefined) throw new IoStoreError('USAGE', '--apply with a container needs the output file after the package', { file: args.file });
      const reader = await openContainer(mountEntry(args.file), { keys: await keyRing(args), codecs: await cliCodecs(args) });
      try {
        const i = findPackageChunk(reader.toc, args.package, packageNamesFromToc(reader.toc));
        if (i < 0) throw new IoStoreError('NOT_FOUND', `no package ${quote(args.package)} in the container`, { file: args.file });
        const bytes = await reader.readChunk(i);
        const scriptObjects = await loadScriptObjects(args.file, args.global);
        if (scriptObjects) o.scriptObjects = scriptObjects;
        o.source = `${args.file}: ${reader.toc.chunkPath(i) ?? args.package}`;
        if (edited) return await writeZen(bytes, edited, args.out!, o, io);
        return show(readZenProps(bytes, o));
      } finally {
        await reader.close();
      }
    }

    const bytes = await readBytes(args.file);
    o.source = args.file;
    if (isLegacyPackage(bytes)) {
      const packageName = packageNameFromContentPath(args.file);
      if (packageName) o.packageName = packageName;
      const uexp = existsSync(uexpOf(args.file)) ? await readBytes(uexpOf(args.file)) : undefined;
      if (edited) {
        const out = args.package ?? args.out;
        if (out === undefined) throw new IoStoreError('USAGE', '--apply needs the output file after the package', { file: args.file });
        const r = applyLegacyProps(bytes, uexp, edited, o);
        await writeFileAtomic(out, [r.uasset]);
        if (r.uexp) await writeFileAtomic(uexpOf(out), [r.uexp]);
        io.err(`iostore: wrote ${out}${r.uexp ? ` and ${uexpOf(out)}` : ''}: ${r.changed.length} export(s) changed${r.addedNames.length ? `, ${r.addedNames.length} name(s) added` : ''}\n`);
        return ExitCode.Ok;
      }
      return show(readLegacyProps(bytes, uexp, o));
    }
    if (args.global !== undefined) {
      const scriptObjects = await loadScriptObjects(args.file, args.global);
      if (scriptObjects) o.scriptObjects = scriptObjects;
    }
    if (edited) {
      const out = args.package ?? args.out;
      if (out === undefined) throw new IoStoreError('USAGE', '--apply needs the output file after the package', { file: args.file });
      return await writeZen(bytes, edited, out, o, io);
    }
    return show(readZenProps(bytes, o));
  },
};

async function readEdited(path: string): Promise<PackagePropsJson> {
  const text = new TextDecoder().decode(await readBytes(path));
  try {
    return JSON.parse(text) as PackagePropsJson;
  } catch (e) {
    throw new IoStoreError('BAD_VALUE', `not JSON (${(e as Error).message})`, { file: path });
  }
}

async function writeZen(bytes: Uint8Array, edited: PackagePropsJson, out: string, o: ReadPropsOptions, io: { err(s: string): void }): Promise<number> {
  const r = applyZenProps(bytes, edited, o);
  await writeFileAtomic(out, [r.bytes]);
  io.err(`iostore: wrote ${out}: ${r.changed.length} export(s) changed${r.addedNames.length ? `, ${r.addedNames.length} name(s) added` : ''}\n`);
  return ExitCode.Ok;
}
