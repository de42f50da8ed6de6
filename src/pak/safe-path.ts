import { IoStoreError } from '../errors.js';
import { quote } from '../util/quote.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * Why a path from a pak index must not be joined to an output folder, or undefined when it is fine. Backslashes
 * count as separators because Windows treats them so.
 */
export function unsafePakPathReason(path: string): string | undefined {
  if (path === '') return 'is empty';
  if (CONTROL.test(path)) return 'contains a control character';
  const p = path.replace(/\\/g, '/');
  if (p.startsWith('/')) return 'is absolute';
  if (/^[A-Za-z]:/.test(p)) return 'starts with a drive letter';
  for (const part of p.split('/')) {
    if (part === '') return 'has an empty component';
    if (part === '.' || part === '..') return `has a "${part}" component`;
    if (part.includes(':')) return 'contains ":" (a drive or stream separator)';
  }
  return undefined;
}

export function isSafePakPath(path: string): boolean {
  return unsafePakPathReason(path) === undefined;
}

/** Throws UNSAFE_PATH when `path` could escape the folder it is extracted into. */
export function assertSafePakPath(path: string, source?: string): void {
  const why = unsafePakPathReason(path);
  if (why !== undefined) {
    throw new IoStoreError('UNSAFE_PATH', `pak path ${quote(path)} ${why}`, source === undefined ? {} : { file: source });
  }
}

/**
 * The mount point as a folder relative to the engine's root: the leading `../` hops (the engine's own
 * convention, e.g. `../../../`) and a bare `/` are dropped, e.g. `../../../Game/Content/` -> `Game/Content/`.
 * Anything else that climbs or is absolute is refused.
 */
export function pakMountRelative(mountPoint: string, source?: string): string {
  let s = mountPoint.replace(/\\/g, '/');
  while (s.startsWith('../')) s = s.slice(3);
  if (s === '/' || s === '') return '';
  if (!s.endsWith('/')) s += '/';
  const why = unsafePakPathReason(s.slice(0, -1));
  if (why !== undefined) {
    throw new IoStoreError('UNSAFE_PATH', `pak mount point ${quote(mountPoint)} ${why}`, source === undefined ? {} : { file: source });
  }
  return s;
}
