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
  const noExt = path.replace(/\.[^/.]+$/, '').replace(/\.o$/, '');
  const parts = noExt.split('/');
  const content = parts.lastIndexOf('Content');
  if (content < 1 || content === parts.length - 1) return [];
  const rest = parts.slice(content + 1).join('/');
  const owner = parts[content - 1]!;
  if (content === 1) return [owner === 'Engine' ? `/Engine/${rest}` : `/Game/${rest}`];
  const out = [`/${owner}/${rest}`];
  const parent = parts[content - 2];
  if (parent !== undefined && parent !== 'Plugins' && parent !== 'Marketplace') {
    out.push(`/${parent}/${rest}`, `/${parent}${owner}/${rest}`);
  }
  return out;
}
