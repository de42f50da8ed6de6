import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { MountEntry } from '../../mount/mount.js';
import type { FolderInput } from '../folder-input.js';

export function findGlobal(inputs: readonly string[], entries: readonly MountEntry[], folders: readonly FolderInput[], explicit?: string): string | undefined {
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
