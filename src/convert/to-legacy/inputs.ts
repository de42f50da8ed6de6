import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { discoverContainers, type MountEntry } from '../../mount/mount.js';
import { isLooseFolder, scanFolder, type FolderInput } from '../folder-input.js';

const ZEN_FILE = /\.(uzenasset|uasset|umap)$/i;
/** Shader libraries given as files: the IoStore form as unpack writes it, or as the engine's .uzenshaderbytecode. */
const SHADER_FILE = /\.(uzenshaderbytecode|ushaderbytecode)$/i;

/** The inputs of a run by kind, with the global container that names their script imports. */
export interface ToLegacyInputs {
  /** Zen package files given one by one (with their bulk files beside them). */
  packageFiles: string[];
  /** Shader libraries given as files. */
  shaderFiles: string[];
  /** The containers of the container files and Paks folders given, in mount order. */
  containers: MountEntry[];
  /** Folders of loose chunk files (an unpack's output) rather than of containers. */
  folders: FolderInput[];
  /** The global container, or its ScriptObjects chunk, when one is given or found. */
  global: string | undefined;
}

/** Sorts the inputs by kind, finds the containers and lists the folders' files. */
export async function classifyInputs(inputs: readonly string[], global: string | undefined): Promise<ToLegacyInputs> {
  const isFile = (p: string) => existsSync(p) && statSync(p).isFile();
  const packageFiles = inputs.filter((p) => ZEN_FILE.test(p) && isFile(p));
  const shaderFiles = inputs.filter((p) => SHADER_FILE.test(p) && isFile(p));
  const looseInputs = inputs.filter((p) => !packageFiles.includes(p) && !shaderFiles.includes(p) && existsSync(p) && statSync(p).isDirectory() && isLooseFolder(p));
  const containerInputs = inputs.filter((p) => !packageFiles.includes(p) && !shaderFiles.includes(p) && !looseInputs.includes(p));
  const containers = containerInputs.length > 0 ? await discoverContainers(containerInputs) : [];
  const folders = looseInputs.map(scanFolder);
  return { packageFiles, shaderFiles, containers, folders, global: findGlobal(inputs, containers, folders, global) };
}

/** The global container given, else one among the inputs, an unpacked ScriptObjects chunk, or one beside the inputs. */
function findGlobal(inputs: readonly string[], entries: readonly MountEntry[], folders: readonly FolderInput[], explicit?: string): string | undefined {
  if (explicit) return explicit;
  const among = entries.find((e) => e.isGlobal);
  if (among) return among.utoc;
  const unpacked = folders.flatMap((f) => f.files).find((f) => f.kind === 'script-objects');
  if (unpacked) return unpacked.file;
  for (const p of inputs) {
    const dir = existsSync(p) && statSync(p).isDirectory() ? p : dirname(p);
    for (const cand of [join(dir, 'global.utoc'), join(dirname(dir), 'global', 'global.utoc'), join(dirname(dir), 'global.utoc')]) {
      if (existsSync(cand)) return cand;
    }
  }
  return undefined;
}
