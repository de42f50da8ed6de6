import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { defaultCodecs } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import { isLegacyPackage, parseLegacyPackage } from '../legacy/package.js';
import { packageNameFromContentPath } from '../legacy/paths.js';
import { packageNameCandidates } from '../toc/package-path.js';
import { pakBlockSize, readPakEntryBlocks, readPakEntryData } from '../pak/data.js';
import { readPak } from '../pak/read.js';
import { pakMountRelative } from '../pak/safe-path.js';
import { concatBytes, mountPointRelative } from '../toc/directory-index.js';
import { ioError, readTocBytes } from '../toc/read-file.js';
import { readToc, type IoStoreToc } from '../toc/toc.js';
import { listModFolder, modFileAtPath, type ModFile } from './mod-folder.js';
import { engineTarget } from './targets.js';
import { settleTargetEngine } from './target-engine.js';
import { legacyEngineCandidates } from '../legacy/unversioned.js';
import { engineListText } from '../toc/engine.js';
import { packFiles, type PackOptions, type PackResult } from './pack.js';
import { hasExtension } from '../util/file-extension.js';

export interface ToZenOptions extends PackOptions {
  /** Project folder that `/Game/` packages given as single files go below (default: the `like` container's, else `Game`). */
  projectName?: string;
  /**
   * The long package path (`/Game/Weapons`) of loose packages that name no package themselves (UE4 summaries store
   * `None`) and lie below no `Content` folder: a single file becomes `<mount>/<its name>`, a folder's files
   * `<mount>/<their path in it>`.
   */
  mount?: string;
}

export interface ToZenResult extends PackResult {
  /** Legacy packages converted. */
  converted: number;
  /** Packages that could not be converted (left out, with their bulk files): the file and the one-line error. */
  failures: Array<{ path: string; message: string }>;
}

/** Files a container can hold, the `.uexp` a legacy package brings, and the shader asset info store entries read. */
const PACKABLE = /\.(uasset|umap|uexp|ubulk|uptnl|ushaderbytecode)$|(^|\/)ShaderAssetInfo-[^/]+\.assetinfo\.json$/i;
const COMPANIONS = ['.uexp', '.ubulk', '.uptnl', '.m.ubulk'];

/**
 * Converts legacy packages to a zen container: `.uasset`/`.umap` files (with their `.uexp` and bulk files beside
 * them), folders laid out below the mount point, and legacy `.pak` files (their entries decoded through the codec
 * registry, placed by the pak's mount point). Zen packages among the inputs are packed as they are. The target
 * comes from `like` or `engine`, as for `pack`; outputs are written under temporary names and renamed at the end.
 * A legacy package that cannot be converted is left out and listed in `failures`; the others still convert.
 */
export async function toZen(inputs: readonly string[], outUtoc: string, o: ToZenOptions = {}): Promise<ToZenResult> {
  if (inputs.length === 0) throw new IoStoreError('USAGE', 'name at least one input (.uasset/.umap, folder or .pak)');
  const warnings: string[] = [];
  let converted = 0;
  // The game container is read when the target, a pak or a single package needs its version, mount point or project.
  let likeToc: Promise<IoStoreToc> | undefined;
  const game = () => (likeToc ??= readTocBytes(o.like!).then((b) => readToc(b, { source: o.like!, ...(o.aesKey ? { aesKey: o.aesKey } : {}) })));
  const list = async (): Promise<ModFile[]> => {
    const containerMount = async () => mountPointRelative(o.mountPoint ?? (o.like ? ((await game()).directoryIndex?.mountPoint ?? '../../../') : '../../../'));
    const project = async () => o.projectName ?? (o.like ? projectOf(await game()) : undefined) ?? 'Game';
    const out: ModFile[] = [];
    for (const input of inputs) {
      const st = await stat(input).catch((e) => {
        throw ioError(e, input);
      });
      if (st.isDirectory()) out.push(...(await placeLooseFiles(await listModFolder(input), await containerMount(), project, o)));
      else if (hasExtension(input, '.pak')) out.push(...(await pakFiles(input, await containerMount(), o.aesKey, warnings)));
      else if (/\.(uasset|umap)$/i.test(input)) out.push(...(await packageFiles(input, await containerMount(), await project(), o)));
      else if (/\.ushaderbytecode$/i.test(input)) out.push(await shaderLibraryFile(input, st.size, await containerMount(), await project()));
      else throw new IoStoreError('UNSUPPORTED', 'not an input to-zen takes (a .uasset/.umap, a .ushaderbytecode, a folder or a .pak)', { file: input });
    }
    const seen = new Map<string, string>();
    for (const f of out) {
      const key = f.path.toLowerCase();
      const other = seen.get(key);
      if (other !== undefined) throw new IoStoreError('BAD_VALUE', `two inputs give ${f.path}: ${other} and ${f.file}`, { file: f.file, offset: 0 });
      seen.set(key, f.file);
    }
    return out;
  };
  const failures: ToZenResult['failures'] = [];
  // The packages' release is checked (and, where the options leave it open, settled) before anything is converted.
  const files = await list();
  const target = await settleTargetEngine(files, { ...(o.engine !== undefined ? { engine: o.engine } : {}), ...(o.like !== undefined ? { likeTocVersion: (await game()).version } : {}) }, inputs.join(', '));
  if (target.from) warnings.push(`target ${engineListText([target.engine!])}, from ${target.from} (--engine to choose another)`);
  const r = await packFiles(async () => files, inputs.join(', '), outUtoc, {
    ...o,
    ...(target.engine ? { engine: target.engine } : {}),
    onConvert: (p) => {
      converted++;
      o.onConvert?.(p);
    },
    onPackageError: (file, e) => {
      failures.push({ path: file, message: e.message });
      o.onPackageError?.(file, e);
    },
  });
  return { ...r, warnings: [...warnings, ...r.warnings], converted, failures };
}

/** The project folder of a game container: the first component of a `<Project>/Content/` path in its index. */
function projectOf(toc: IoStoreToc): string | undefined {
  const prefix = mountPointRelative(toc.directoryIndex?.mountPoint ?? '');
  for (const f of toc.files()) {
    const parts = (prefix + f.path).split('/');
    if (parts.length > 2 && parts[1] === 'Content' && parts[0] !== 'Engine') return parts[0];
  }
  return undefined;
}

/** Where a long package name lives below the engine root: `/Game/X` -> `<Project>/Content/X`. */
function contentPath(packageName: string, project: string): string {
  const m = /^\/([^/]+)\/(.+)$/.exec(packageName);
  if (!m) throw new IoStoreError('BAD_VALUE', `"${packageName}" is not a long package name`);
  const [, root, rest] = m;
  if (root === 'Game') return `${project}/Content/${rest}`;
  if (root === 'Engine') return `Engine/Content/${rest}`;
  return `${project}/Plugins/${root}/Content/${rest}`;
}

/** A single package file and the companions beside it, placed by the package's own name. */
async function packageFiles(file: string, containerMount: string, project: string, o: ToZenOptions): Promise<ModFile[]> {
  const bytes = new Uint8Array(await readFile(file).catch((e) => {
    throw ioError(e, file);
  }));
  if (!isLegacyPackage(bytes)) throw new IoStoreError('BAD_MAGIC', 'not a legacy package (no package tag and negative file version at its start); pass zen packages in a folder', { file, offset: 0 });
  const ext = file.slice(file.lastIndexOf('.'));
  const stem = file.slice(0, -ext.length);
  const name = ownPackageName(bytes, file, o) ?? packageNameFromContentPath(file) ?? mountedName(basename(stem), file, o);
  const full = contentPath(name, project);
  if (!full.startsWith(containerMount)) throw new IoStoreError('USAGE', `${name} lies at ${full}, outside the mount point ${containerMount}`, { file });
  const base = full.slice(containerMount.length);
  const out: ModFile[] = [{ path: base + ext, file, size: bytes.length, onDisk: true, read: async () => bytes }];
  for (const c of COMPANIONS) {
    const p = stem + c;
    if (await exists(p)) out.push({ path: base + c, file: p, size: (await stat(p)).size, onDisk: true, read: async () => new Uint8Array(await readFile(p)) });
  }
  return out;
}

/** The package name a legacy package's summary holds (UE5 ones do; UE4 ones store `None`): undefined if none. */
function ownPackageName(bytes: Uint8Array, file: string, o: ToZenOptions): string | undefined {
  // Read for its name only: a release that does not fit an unversioned package is reported by settleTargetEngine.
  const engine = o.engine ? engineTarget(o.engine).engine : undefined;
  const pkg = parseLegacyPackage(bytes, { source: file, ...(engine && legacyEngineCandidates(bytes).includes(engine) ? { engine } : {}) });
  const name = pkg.summary.packageName;
  return name.startsWith('/') ? name : undefined;
}

/** `<--mount>/<path>` for a loose package that nothing else names; the error says how to give it. */
function mountedName(path: string, file: string, o: ToZenOptions): string {
  if (o.mount === undefined) {
    throw new IoStoreError('USAGE', `the package names no package (UE4 summaries store None) and lies below no Content folder: give the long package path of its folder, e.g. --mount /Game/${path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : 'Some/Path'}`, { file, offset: 0 });
  }
  const mount = o.mount.replace(/\/+$/, '');
  if (!/^\/[^/]+(\/[^/]+)*$/.test(mount)) throw new IoStoreError('USAGE', `--mount ${JSON.stringify(o.mount)} is not a long package path (e.g. /Game/Weapons)`);
  return `${mount}/${path}`;
}

const PACKAGE_EXT = /\.(uasset|umap)$/i;
const COMPANION_EXT = /(\.m\.ubulk|\.uexp|\.ubulk|\.uptnl)$/i;

/**
 * Places the files of a folder that are not laid out below the mount point: a folder whose top is `Content/`
 * stands for `/Game/` (`<Project>/Content/`); a package below no `Content` folder goes where its own name says
 * (UE5 summaries hold it), else below `mount`; its `.uexp` and bulk files go with it.
 */
async function placeLooseFiles(files: ModFile[], containerMount: string, project: () => Promise<string>, o: ToZenOptions): Promise<ModFile[]> {
  const below = (path: string) => packageNameCandidates(containerMount + path).length > 0;
  const moved = new Map<string, string>();
  for (const f of files) {
    if (!PACKAGE_EXT.test(f.path) || below(f.path)) continue;
    const stem = f.path.replace(PACKAGE_EXT, '');
    let name: string;
    if (/^Content\//i.test(f.path)) name = `/Game/${stem.slice('Content/'.length)}`;
    else {
      const bytes = await f.read();
      name = (isLegacyPackage(bytes) ? ownPackageName(bytes, f.file, o) : undefined) ?? mountedName(stem, f.file, o);
    }
    const full = contentPath(name, await project());
    if (!full.startsWith(containerMount)) throw new IoStoreError('USAGE', `${name} lies at ${full}, outside the mount point ${containerMount}`, { file: f.file });
    moved.set(stem.toLowerCase(), full.slice(containerMount.length));
  }
  if (moved.size === 0) return files;
  return files.map((f) => {
    const ext = PACKAGE_EXT.exec(f.path)?.[0] ?? COMPANION_EXT.exec(f.path)?.[0];
    const to = ext === undefined ? undefined : moved.get(f.path.slice(0, -ext.length).toLowerCase());
    return to === undefined ? f : modFileAtPath(f, to + ext);
  });
}

/** A shader library given on its own: the engine stages it at `<Project>/Content/<file name>`. */
async function shaderLibraryFile(file: string, size: number, containerMount: string, project: string): Promise<ModFile> {
  const full = `${project}/Content/${basename(file)}`;
  if (!full.startsWith(containerMount)) throw new IoStoreError('USAGE', `a shader library lies at ${full}, outside the mount point ${containerMount}`, { file });
  return { path: full.slice(containerMount.length), file, size, onDisk: true, read: async () => new Uint8Array(await readFile(file)) };
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then((s) => s.isFile(), () => false);
}

/** The packable entries of a legacy .pak, decoded, with their paths below the container's mount point. */
async function pakFiles(file: string, containerMount: string, aesKey: Uint8Array | undefined, warnings: string[]): Promise<ModFile[]> {
  const bytes = new Uint8Array(await readFile(file).catch((e) => {
    throw ioError(e, file);
  }));
  const pak = readPak(bytes, { source: file, ...(aesKey ? { aesKey } : {}) });
  const mount = pakMountRelative(pak.mountPoint, file);
  const codecs = defaultCodecs();
  const out: ModFile[] = [];
  let skipped = 0;
  for (const e of pak.entries) {
    const full = mount + e.path;
    if (!PACKABLE.test(e.path) || !full.startsWith(containerMount)) {
      skipped++;
      continue;
    }
    const where = `${file}/${e.path}`;
    const read = async (): Promise<Uint8Array> => {
      if (e.compressionMethodIndex === 0) return readPakEntryData(bytes, pak, e, aesKey ? { aesKey } : {});
      const codec = codecs.require(e.compressionMethod);
      // Checked before anything is allocated: the declared sizes alone must not set the memory taken.
      const blockSize = pakBlockSize(e, file);
      const parts: Uint8Array[] = [];
      let at = 0;
      for (const b of readPakEntryBlocks(bytes, pak, e, aesKey ? { aesKey } : {})) {
        const n = Math.min(blockSize, e.uncompressedSize - at);
        if (n <= 0) throw new IoStoreError('BAD_VALUE', 'the entry has more compression blocks than its size needs', { file: where });
        parts.push(codec.decompress(b, n));
        at += n;
      }
      if (at !== e.uncompressedSize) throw new IoStoreError('BAD_VALUE', `the entry's blocks give ${at} of its ${e.uncompressedSize} bytes`, { file: where });
      return parts.length === 1 ? parts[0]! : concatBytes(parts);
    };
    out.push({ path: full.slice(containerMount.length), file: where, size: e.uncompressedSize, onDisk: false, read });
  }
  if (skipped > 0) warnings.push(`${basename(file)}: ${skipped} entr${skipped === 1 ? 'y' : 'ies'} that a container does not hold (or outside the mount point) left out`);
  return out;
}
