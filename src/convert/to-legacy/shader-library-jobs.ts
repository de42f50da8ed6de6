import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { safeOutputPath, writeFileAtomic } from '../../layout/output.js';
import { unnamedChunkPath } from '../../layout/unnamed.js';
import { serializeShaderAssetInfo, shaderAssetInfoName } from '../../shaders/asset-info.js';
import { toHex } from '../../util/bytes.js';
import { legacyShaderLibraryPieces, readZenShaderLibrary, type PendingShaderLibrary, type ShaderChunkSource } from '../shader-libraries.js';
import type { ToLegacyRun } from './run.js';

/**
 * A job writing a shader library in its legacy form, with the code of its ShaderCode chunks (those at hand, else
 * where `fallback` finds them), and the asset-info file beside it.
 */
export function addShaderLibraryJob(run: ToLegacyRun, lib: PendingShaderLibrary, size: number, fallback?: (idHex: string) => ShaderChunkSource | undefined): void {
  run.result.otherChunks++;
  const target = [lib.path];
  run.addJob({ path: lib.path, kind: 'chunk', size, outputs: target, run: async () => {
    lib.path = target[0]!;
    const { pieces, report } = legacyShaderLibraryPieces(lib, (id) => run.codeChunks.get(id) ?? fallback?.(id));
    // A library can be large: streamed on this thread rather than held whole for the writer.
    run.wroteFile(await writeFileAtomic(safeOutputPath(run.root, lib.path), pieces()));
    run.result.shaderLibraries.push(report);
    await writeAssetInfo(run, lib);
    if (report.rawShaders > 0) {
      run.result.warnings.push(`${lib.path}: ${report.rawShaders} of ${report.shaders} shaders stored uncompressed (Oodle did not shrink them; the engine reads shaders whose stored size equals their size as they are)`);
    }
    return {};
  } });
}

/**
 * Which packages use the library's shader maps (from the store entries at hand), in the cooker's asset-info file
 * beside it: pack and to-zen read it back into the store entries, as UnrealPak does.
 */
async function writeAssetInfo(run: ToLegacyRun, lib: PendingShaderLibrary): Promise<void> {
  const name = shaderAssetInfoName(lib.path.split('/').pop()!);
  if (!name) return;
  const maps = new Set(lib.zen.shaderMapHashes.map((h) => toHex(h)));
  const shaderMaps = new Map<string, string[]>();
  for (const [id, p] of run.headers.stores) {
    const pkg = run.headers.get(id)?.packageName;
    if (!pkg) continue;
    for (const h of p.shaderMapHashes) {
      const hex = toHex(h);
      if (maps.has(hex)) shaderMaps.set(hex, [...(shaderMaps.get(hex) ?? []), pkg]);
    }
  }
  if (shaderMaps.size === 0) return;
  const dir = lib.path.includes('/') ? lib.path.slice(0, lib.path.lastIndexOf('/') + 1) : '';
  run.wroteFile(await writeFileAtomic(safeOutputPath(run.root, dir + name), [new TextEncoder().encode(serializeShaderAssetInfo({ shaderMaps }))]));
}

/** Shader libraries given as files: converted, their code found where unpack writes it; the legacy form copied. */
export function planShaderFiles(run: ToLegacyRun, files: readonly string[]): void {
  for (const f of files) {
    const bytes = new Uint8Array(readFileSync(f));
    const target = basename(f).replace(/\.uzenshaderbytecode$/i, '.ushaderbytecode');
    if (run.match && !run.match(target)) continue;
    let lib: PendingShaderLibrary | null;
    try {
      lib = readZenShaderLibrary(bytes, target, f);
    } catch (e) {
      run.fail(f, e);
      continue;
    }
    if (!lib) {
      // Already in the legacy form: written as it is.
      run.result.otherChunks++;
      const outputs = [target];
      run.addJob({ path: target, kind: 'chunk', size: bytes.length, outputs, run: async () => ({ written: run.writeFile(safeOutputPath(run.root, outputs[0]!), bytes) }) });
      continue;
    }
    addShaderLibraryJob(run, lib, bytes.length, (id) => unpackedShaderChunk(f, id));
  }
}

/**
 * The shader libraries of the containers, first: the ShaderCode chunks of those converted become part of them, not
 * files of their own (`run.claimed`). Notes every ShaderCode chunk at hand. Returns the libraries (chunk ids)
 * converted, or failed (reported, not written in a form a legacy reader would misread).
 */
export async function planContainerShaderLibraries(run: ToLegacyRun): Promise<Set<string>> {
  const libraries = new Set<string>();
  for (const [c, { reader }] of run.containers.entries()) {
    const toc = reader.toc;
    for (let i = 0; i < toc.chunkCount; i++) {
      const idHex = toc.chunkIdHex(i);
      if (run.owner.get(idHex) !== c) continue;
      const type = toc.chunkTypeName(i);
      if (type === 'ShaderCode') run.codeChunks.set(idHex, { reader, index: i });
      if (type !== 'ShaderCodeLibrary') continue;
      const path = toc.chunkPath(i) ?? unnamedChunkPath(type, idHex);
      if (run.match && !run.match(path)) continue;
      try {
        const lib = readZenShaderLibrary(await reader.readChunk(i), path, `${toc.source}: ${path}`);
        if (!lib) continue;
        libraries.add(idHex);
        for (const id of lib.groupIds) run.claimed.add(id);
        addShaderLibraryJob(run, lib, toc.chunkSize(i));
      } catch (e) {
        run.fail(path, e);
        libraries.add(idHex);
      }
    }
  }
  return libraries;
}

/**
 * A ShaderCode chunk as unpack writes it (`_chunks/ShaderCode/<id>.bin` at the root of the unpack folder), looked
 * for in the folders above a shader library file given on its own.
 */
function unpackedShaderChunk(libraryFile: string, idHex: string): ShaderChunkSource | undefined {
  for (let dir = dirname(libraryFile), depth = 0; depth < 16; depth++) {
    const p = join(dir, unnamedChunkPath('ShaderCode', idHex));
    if (existsSync(p)) return { read: async () => new Uint8Array(readFileSync(p)) };
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}
