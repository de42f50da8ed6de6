import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { isClassicPackage } from '../../classic/index.js';
import { IoStoreError } from '../../errors.js';
import { containerHeaderVersionLabel, describeContainerHeader, describePackage, type ContainerHeaderView, type PackageView } from '../../inspect/describe.js';
import { containerPackageLoader, findPackageChunk, loadScriptObjects, looksLikeScriptObjects, packageNamesFromToc, readContainerHeader, scriptObjectsFromReader } from '../../inspect/context.js';
import { importedExportPaths } from '../../inspect/imports.js';
import { ioError, ucasGiven } from '../../toc/read-file.js';
import { mountEntry } from '../../mount/mount.js';
import { openContainer } from '../../mount/open.js';
import { parseContainerHeader, parseContainerHeaderVersionName, type ContainerHeader, type ContainerHeaderVersionName } from '../../zen/container-header.js';
import { parseZenPackage, type ParseZenPackageOptions } from '../../zen/zen-package.js';
import type { Command } from '../command.js';
import { renderJson, renderTable } from '../format.js';
import { ExitCode } from '../io.js';
import { inspectClassic } from './inspect-classic.js';
import { cliCodecs, keyRing, withKeyOptions, type KeyArgs } from '../keys.js';
import { parseEngineVersion } from '../../toc/engine.js';
import { quote } from '../../util/quote.js';
import { notExpectedKind, sniffFile } from '../../util/sniff.js';
import { isLegacyPackage } from '../../legacy/package.js';
import { parseLegacyEngineRelease } from '../../legacy/versions.js';
import { inspectLegacy, type LegacyInspectOptions } from './inspect-legacy.js';
import { isLocres } from '../../locres/locres.js';
import { inspectLocres } from './inspect-locres.js';
import { inspectShaderLibrary } from './inspect-shaders.js';
import { engineOption } from '../options.js';
import type { CliIO } from '../io.js';
import { inspectPak } from './inspect-pak.js';
import { inspectScriptObjects } from './inspect-script-objects.js';
import { hasExtension } from '../../util/file-extension.js';

interface InspectArgs extends KeyArgs {
  file: string;
  package?: string;
  json?: boolean;
  'container-header-version'?: string;
  engine?: string;
  version?: string;
  mount?: string;
  global?: string;
  thumbnails?: string;
}

export const inspectCommand: Command<InspectArgs> = {
  command: 'inspect <file> [package]',
  describe: 'Show a zen or legacy package (names, imports, exports), a container header, a shader library, a .locres or a classic UE1/UE2 package',
  builder: (y) =>
    withKeyOptions(y)
      .positional('file', { type: 'string', demandOption: true, describe: 'a .uasset/.umap (zen or legacy form), a .uzenasset, a container-header .bin, a .utoc, a shader library (.ushaderbytecode, .uzenshaderbytecode), a localization .locres, or a classic package (.u, .utx, .unr, .uax, .umx)' })
      .positional('package', { type: 'string', describe: 'with a .utoc or .pak: a package path (or its tail, with or without extension) or name to show instead of the container header (a .pak: the list of its packages)' })
      .option('json', { type: 'boolean', describe: 'print JSON' })
      .option('container-header-version', { type: 'string', describe: 'settle the header layout: PreInitial, Initial, UE5Initial, LocalizedPackages, OptionalSegmentPackages, NoExportInfo, SoftPackageReferences, SoftPackageReferencesOffset' })
      .option('engine', engineOption('engine release of the package (e.g. UE4_27, UE5_3; legacy packages UE4_0 on) when its bytes cannot tell'))
      .option('mount', { type: 'string', describe: 'long package path (e.g. /Game/Maps) of a UE4 legacy package\'s folder, which its summary does not name' })
      .option('global', { type: 'string', describe: 'global.utoc, or the ScriptObjects chunk unpack writes (_chunks/ScriptObjects/<id>.bin), to name script imports (default: found beside the container or above the package file)' })
      .option('thumbnails', { type: 'string', describe: 'with a legacy .uasset/.umap (or one in a .pak): write each thumbnail as the image file it is (<object>.png/.jpg) into this folder' })
      .example('$0 inspect pakchunk0-Windows.utoc', 'the container header')
      .example('$0 inspect pakchunk0-Windows.utoc Maps/Level.umap', 'one package, imports resolved')
      .example('$0 inspect pakchunk0-Windows.utoc Level', 'the same: a path tail or package name')
      .example('$0 inspect MyMod_P.pak Hero', 'a legacy package inside a .pak, with its .uexp')
      .example('$0 inspect out/Game/Content/Hero.uasset --engine UE5_4', '')
      .example('$0 inspect Maps/Level.umap --version UE4_18', 'an unversioned UE 4.18 package (export data in the .umap)')
      .example('$0 inspect System/Botpack.u --json', 'a classic UE1/UE2 package: names, imports, exports')
      .example('$0 inspect Content/Hero.uasset --thumbnails thumbs', 'an editor package: its tables, and its thumbnails as thumbs/Hero.png')
      .example('$0 inspect Localization/Game/de/Game.locres', 'the German texts by namespace and key') as never,
  async run(args, io) {
    const c = inspectContext(args, io);
    if (hasExtension(args.file, '.ucas')) throw ucasGiven(args.file);
    if (hasExtension(args.file, '.pak')) return inspectPakArg(c);
    if (hasExtension(args.file, '.utoc')) return inspectContainer(c);
    return inspectFile(c, new Uint8Array(await readFile(args.file).catch((e) => { throw ioError(e, args.file); })));
  },
};

/** What every kind of file shown needs: the arguments, the output, and the engine and header hints. */
interface InspectContext {
  args: InspectArgs;
  io: CliIO;
  headerVersion: ContainerHeaderVersionName | undefined;
  /** The zen package parser's hints; `zenEngine()` adds the engine once the file is known to be zen. */
  hints: ParseZenPackageOptions;
  zenEngine(): void;
  legacyOptions(): LegacyInspectOptions;
}

function inspectContext(args: InspectArgs, io: CliIO): InspectContext {
  const headerVersion = args['container-header-version'] === undefined ? undefined : parseContainerHeaderVersionName(args['container-header-version']);
  const hints: ParseZenPackageOptions = headerVersion !== undefined ? { containerHeaderVersion: headerVersion } : {};
  const engineName = args.version ?? args.engine;
  return {
    args,
    io,
    headerVersion,
    hints,
    // Legacy packages go back to UE 4.0; zen ones and containers start at 4.25: parsed once the file's kind is known.
    zenEngine: () => {
      if (engineName !== undefined) hints.engine = parseEngineVersion(engineName);
    },
    legacyOptions: () => ({
      ...(engineName !== undefined ? { engine: parseLegacyEngineRelease(engineName) } : {}),
      ...(args.mount !== undefined ? { mount: args.mount } : {}),
      ...(args.thumbnails !== undefined ? { thumbnails: args.thumbnails } : {}),
    }),
  };
}

function noThumbnails(c: InspectContext, what: string): void {
  if (c.args.thumbnails !== undefined) throw new IoStoreError('USAGE', `--thumbnails takes a legacy .uasset/.umap (${what})`, { file: c.args.file });
}

/** A .pak: the list of its packages, or one of them (legacy, or zen in a pak of zen packages). */
async function inspectPakArg(c: InspectContext): Promise<number> {
  const { args } = c;
  const showZen = async (source: string, bytes: Uint8Array) => {
    if (args.thumbnails !== undefined) throw new IoStoreError('USAGE', '--thumbnails takes a legacy .uasset/.umap (editor packages hold thumbnails; cooked and zen ones do not)', { file: source });
    c.zenEngine();
    const view = describePackage(parseZenPackage(bytes, { source, ...c.hints }), {});
    return args.json ? renderJson(view) : renderPackage(view);
  };
  c.io.out(await inspectPak(args.file, args.package, args, c.legacyOptions(), showZen));
  return ExitCode.Ok;
}

/** A .utoc: its container header (a global container: its script objects), or one package, imports resolved. */
async function inspectContainer(c: InspectContext): Promise<number> {
  const { args, io } = c;
  noThumbnails(c, 'editor packages hold thumbnails; containers hold cooked ones, which have none');
  c.zenEngine();
  const reader = await openContainer(mountEntry(args.file), { keys: await keyRing(args), codecs: await cliCodecs(args) });
  try {
    const names = packageNamesFromToc(reader.toc);
    const header = await readContainerHeader(reader, c.headerVersion);
    if (args.package !== undefined) return await inspectContainerPackage(c, reader, header, names);
    if (!header) {
      // A global container holds the script objects, not packages.
      const scriptObjects = await scriptObjectsFromReader(reader);
      if (!scriptObjects) throw new IoStoreError('NOT_FOUND', 'the container has neither a container header nor script objects to show', { file: args.file });
      io.out(inspectScriptObjects(args.file, scriptObjects, !!args.json, 'global container'));
      return ExitCode.Ok;
    }
    const view = describeContainerHeader(header, names);
    io.out(args.json ? renderJson(view) : renderHeader(view));
    return ExitCode.Ok;
  } finally {
    await reader.close();
  }
}

type OpenedContainer = Awaited<ReturnType<typeof openContainer>>;

async function inspectContainerPackage(c: InspectContext, reader: OpenedContainer, header: ContainerHeader | null, names: ReturnType<typeof packageNamesFromToc>): Promise<number> {
  const { args, io } = c;
  const i = findPackageChunk(reader.toc, args.package!, names);
  if (i < 0) throw new IoStoreError('NOT_FOUND', `no package ${quote(args.package!)} in the container`, { file: args.file });
  const id = reader.toc.chunkId(i).id;
  const entry = header?.packages.find((p) => p.packageId === id);
  const bytes = await reader.readChunk(i);
  const pkg = parseZenPackage(bytes, {
    source: `${args.file}: ${reader.toc.chunkPath(i)}`,
    ...c.hints,
    ...(header && c.hints.containerHeaderVersion === undefined ? { containerHeaderVersion: header.version } : {}),
    ...(entry ? { storeEntry: entry } : {}),
  });
  const scriptObjects = await loadScriptObjects(args.file, args.global);
  const importedExports = await importedExportPaths(pkg, entry, containerPackageLoader(reader, header));
  const view = describePackage(pkg, { packageNames: names, importedExports, ...(entry ? { importedPackageIds: entry.importedPackages } : {}), ...(scriptObjects ? { scriptObjects } : {}) });
  io.out(args.json ? renderJson(view) : renderPackage(view));
  hintGlobal(view, scriptObjects, args, io);
  return ExitCode.Ok;
}

/** A loose file, told by its bytes (and, where they cannot tell, its name). */
async function inspectFile(c: InspectContext, bytes: Uint8Array): Promise<number> {
  const { args, io } = c;
  const json = !!args.json;
  if (isLocres(bytes) || /\.locres$/i.test(args.file)) {
    io.out(inspectLocres(args.file, bytes, json));
    return ExitCode.Ok;
  }
  if (isClassicPackage(bytes)) return inspectClassic(bytes, args, io);
  // Legacy and zen packages are told apart by their bytes (the package tag and a negative legacy file version).
  if (isLegacyPackage(bytes)) {
    io.out(inspectLegacy(args.file, bytes, json, c.legacyOptions()));
    return ExitCode.Ok;
  }
  noThumbnails(c, 'editor packages hold thumbnails; cooked and zen ones do not');
  c.zenEngine();
  if (SHADER_LIBRARY.test(args.file)) {
    io.out(inspectShaderLibrary(args.file, bytes, json));
    return ExitCode.Ok;
  }
  if (looksLikeScriptObjects(bytes)) {
    const scriptObjects = await loadScriptObjects(args.file, args.file);
    io.out(inspectScriptObjects(args.file, scriptObjects!, json, 'chunk'));
    return ExitCode.Ok;
  }
  const kind = sniffFile(bytes)?.kind;
  if (kind === 'container-header' || c.headerVersion !== undefined) return showHeaderFile(c, bytes);
  if (kind === 'utoc') throw new IoStoreError('USAGE', 'this is a .utoc container table of contents: pass it with its .utoc name (its .ucas beside it)', { file: args.file });
  if (kind !== undefined) throw new IoStoreError('BAD_MAGIC', notExpectedKind(bytes, INSPECTABLE), { file: args.file });
  if (/^\.(uasset|umap|uzenasset)$/i.test(extname(args.file))) return showPackageFile(c, bytes);
  // Neither zen packages nor UE4 container headers carry a magic number: a file that parses as neither is
  // described by its first bytes, not by the error of whichever parser was tried last.
  for (const show of [showHeaderFile, showPackageFile]) {
    try {
      return await show(c, bytes);
    } catch (e) {
      if (!(e instanceof IoStoreError)) throw e;
    }
  }
  throw new IoStoreError('BAD_MAGIC', notExpectedKind(bytes, INSPECTABLE), { file: args.file });
}

function showHeaderFile(c: InspectContext, bytes: Uint8Array): number {
  const header = parseContainerHeader(bytes, { source: c.args.file, ...(c.headerVersion ? { version: c.headerVersion } : {}) });
  const view = describeContainerHeader(header);
  c.io.out(c.args.json ? renderJson(view) : renderHeader(view));
  return ExitCode.Ok;
}

async function showPackageFile(c: InspectContext, bytes: Uint8Array): Promise<number> {
  const pkg = parseZenPackage(bytes, { source: c.args.file, ...c.hints });
  const scriptObjects = await loadScriptObjects(c.args.file, c.args.global);
  const view = describePackage(pkg, scriptObjects ? { scriptObjects } : {});
  c.io.out(c.args.json ? renderJson(view) : renderPackage(view));
  hintGlobal(view, scriptObjects, c.args, c.io);
  return ExitCode.Ok;
}

/** One line on stderr when script imports stay unnamed for want of the global container's script objects. */
function hintGlobal(view: PackageView, scriptObjects: unknown, args: InspectArgs, io: CliIO): void {
  if (scriptObjects || args.json || !view.imports.some((i) => i.kind === 'ScriptImport')) return;
  io.err('hint: script imports stay unnamed: pass --global <global.utoc>, or the _chunks/ScriptObjects/<id>.bin that unpack wrote\n');
}

/** What inspect reads, for the message about a file it does not. */
const INSPECTABLE = ['a zen or legacy package', 'a container header', 'a .utoc container', 'a classic UE1/UE2 package', 'a shader library', 'a .locres'];
/** Shader libraries have no magic number (their first u32 is a small version): known by name. */
const SHADER_LIBRARY = /\.u(zen)?shaderbytecode$/i;

function renderPackage(v: PackageView): string {
  const lines = [
    `Package:          ${v.packageName}`,
    `Format:           ${v.format} zen package, header ${v.headerSize} bytes, export data ${v.exportDataSize} bytes`,
    `Legacy header:    ${v.cookedHeaderSize} bytes (CookedHeaderSize)`,
    `Package flags:    ${v.packageFlags}`,
    `Versioning:       ${v.versioning ? `UE4 ${v.versioning.fileVersionUE4}, UE5 ${v.versioning.fileVersionUE5}, licensee ${v.versioning.licenseeVersion}, zen ${v.versioning.zenVersion}` : 'unversioned'}`,
    `Names:            ${v.nameCount}`,
    `Bulk data:        ${v.bulkData} entries`,
    `Imported packages (${v.importedPackages.length}):`,
    ...v.importedPackages.map((p, i) => `  ${i}  ${p}`),
    '',
    `Imports (${v.imports.length}):`,
  ];
  const out = [lines.join('\n'), '\n'];
  out.push(renderTable(['#', 'kind', 'index', 'resolved'], v.imports.map((i) => [String(i.index), i.kind, i.value, i.resolved ?? '']), ['right', 'left', 'left', 'left']));
  out.push(`\nExports (${v.exports.length}):\n`);
  out.push(renderTable(['#', 'name', 'class', 'outer', 'offset', 'size'], v.exports.map((e) => [String(e.index), e.name, e.class ?? '', e.outer ?? '', String(e.serialOffset), String(e.serialSize)]), ['right', 'left', 'left', 'left', 'right', 'right']));
  out.push(`\nNames (${v.nameCount}):\n${v.names.map((n, i) => `  ${i}  ${n}`).join('\n')}\n`);
  return out.join('');
}

function renderHeader(v: ContainerHeaderView): string {
  const head = [
    `Container header: ${containerHeaderVersionLabel(v.version)} (${v.version})`,
    `Container id:     ${v.containerId}`,
    `Packages:         ${v.packageCount}`,
    `Optional segment: ${v.optionalSegmentPackages}`,
    `Localized:        ${v.localizedPackages}`,
    `Redirects:        ${v.packageRedirects}`,
    `Soft references:  ${v.softPackageReferences}`,
    '',
  ].join('\n');
  // UE 5.3+ store entries hold no export counts (the package's own header does): no column that would stay empty.
  if (v.packages.every((p) => p.exportCount === undefined)) {
    return `${head}\n${renderTable(['package id', 'name', 'imports', 'shader maps'], v.packages.map((p) => [p.id, p.name ?? '', String(p.importedPackages.length), String(p.shaderMapHashes)]), ['left', 'left', 'right', 'right'])}`;
  }
  return `${head}\n${renderTable(['package id', 'name', 'imports', 'exports', 'shader maps'], v.packages.map((p) => [p.id, p.name ?? '', String(p.importedPackages.length), p.exportCount === undefined ? '' : String(p.exportCount), String(p.shaderMapHashes)]), ['left', 'left', 'right', 'right', 'right'])}`;
}
