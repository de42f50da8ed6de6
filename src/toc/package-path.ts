/**
 * Maps a directory-index path (mount point applied, `../` hops removed) to the long package name the engine hashes
 * into package ids: `<Project>/Content/X.uasset` -> `/Game/X`, `Engine/Content/X` -> `/Engine/X`,
 * `.../Plugins/.../<Plugin>/Content/X` -> `/<Plugin>/X`. Returns undefined for paths outside any Content folder.
 */
export function packageNameFromPath(path: string): string | undefined {
  return packageNameCandidates(path)[0];
}

/**
 * The package names a path may stand for, most likely first. A plugin usually mounts under its folder's name, but
 * sub-plugins nested in another plugin's folder (Engine/Plugins/Interchange/Runtime) may mount under the parent's
 * name or the two joined; only the container's own ids can tell, so callers match candidates against them.
 */
export function packageNameCandidates(path: string): string[] {
  // Found by searching the string, not by splitting it: a pack calls this for every file of a mod (two regular
  // expressions, a split and a join had been ~1.3 us a file, ~55 ms of a 30,000-file pack before its copy starts).
  const noExt = withoutPackageExtension(path);
  // The last `Content` component, with a component before it and one after it.
  if (noExt === 'Content' || noExt.endsWith('/Content')) return [];
  const at = noExt.lastIndexOf(CONTENT_DIR);
  if (at < 0) return [];
  const ownerSlash = slashBefore(noExt, at);
  const rest = noExt.slice(at + CONTENT_DIR.length);
  const owner = noExt.slice(ownerSlash + 1, at);
  if (ownerSlash < 0) return [owner === 'Engine' ? `/Engine/${rest}` : `/Game/${rest}`];
  const out = [`/${owner}/${rest}`];
  const parent = noExt.slice(slashBefore(noExt, ownerSlash) + 1, ownerSlash);
  if (parent !== 'Plugins' && parent !== 'Marketplace') out.push(`/${parent}/${rest}`, `/${parent}${owner}/${rest}`);
  return out;
}

const CONTENT_DIR = '/Content/';

/** Where the last `/` before `at` is in `s` (-1: none). */
function slashBefore(s: string, at: number): number {
  return at <= 0 ? -1 : s.lastIndexOf('/', at - 1);
}

/** `path` without its extension (the text after its last `.`, when that holds no `/`), then without a `.o`. */
function withoutPackageExtension(path: string): string {
  const dot = path.lastIndexOf('.');
  let noExt = dot >= 0 && dot < path.length - 1 && path.indexOf('/', dot) < 0 ? path.slice(0, dot) : path;
  if (noExt.endsWith('.o')) noExt = noExt.slice(0, -2);
  return noExt;
}
