/**
 * Whether `path` ends with `ext` (written in lower case, e.g. `.pak`), ASCII letters in either case: what
 * `/\.pak$/i` tells, without a regular expression, which a short run would compile on its first test (~50K
 * instructions each).
 */
export function hasExtension(path: string, ext: string): boolean {
  const at = path.length - ext.length;
  if (at < 0) return false;
  for (let i = 0; i < ext.length; i++) {
    const e = ext.charCodeAt(i);
    const c = path.charCodeAt(at + i);
    if (c !== e && !(e >= 0x61 && e <= 0x7a && c === e - 0x20)) return false;
  }
  return true;
}

/** `path` without `ext` at its end (hasExtension), as `path.replace(/\.utoc$/i, '')` gives it. */
export function withoutExtension(path: string, ext: string): string {
  return hasExtension(path, ext) ? path.slice(0, path.length - ext.length) : path;
}
