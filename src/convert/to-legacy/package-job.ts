/** The legacy pair beside a package's unpack path (`X.uasset`/`X.umap` and `X.uexp`). */
export function legacyPaths(path: string): { uasset: string; uexp: string } {
  const ext = /\.umap$/i.test(path) ? '.umap' : '.uasset';
  const stem = path.replace(/\.(uasset|umap|uzenasset|bin)$/i, '');
  return { uasset: stem + ext, uexp: `${stem}.uexp` };
}
