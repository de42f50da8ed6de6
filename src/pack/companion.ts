import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { IoStoreError } from '../errors.js';
import { readPak } from '../pak/read.js';
import { TocVersion } from '../toc/version.js';

export interface CompanionPakSettings {
  version: number;
  mountPoint: string;
  /** Where the settings came from, for the summary. */
  from: string;
}

/**
 * The engine mounts an IoStore container only through a `.pak` of the same base name. Its version and mount point
 * are taken from the source container's own companion pak when one sits beside it; otherwise pak version 11, which
 * every UE 4.26-5.8 engine reads, or 15 for TOC v10 ("6.0") containers.
 */
export async function companionPakSettings(sourceUtoc: string | undefined, tocVersion: number): Promise<CompanionPakSettings> {
  const sibling = sourceUtoc?.replace(/\.utoc$/i, '.pak');
  if (sibling && existsSync(sibling) && (await stat(sibling)).size < 64 << 20) {
    try {
      const pak = readPak(new Uint8Array(await readFile(sibling)), { source: sibling, verifyHashes: false });
      return { version: pak.version, mountPoint: pak.mountPoint, from: sibling };
    } catch (e) {
      // An encrypted or unreadable sibling only loses its settings: the defaults still mount.
      if (!(e instanceof IoStoreError)) throw e;
    }
  }
  return { version: tocVersion >= TocVersion.ContainerEncryptionMethod ? 15 : 11, mountPoint: '../../../', from: 'default' };
}
