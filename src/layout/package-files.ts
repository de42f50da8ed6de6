/**
 * The files one package is made of, in either form: zen (`.uasset`/`.umap` holding the zen header and export data)
 * or legacy (`.uasset`/`.umap` + `.uexp`), each with its bulk files. unpack, pack and the mount order share this.
 */

/** Extensions of a package's files, longest first (`.m.ubulk` before `.ubulk`). */
export const PACKAGE_FILE_EXTENSIONS = ['.m.ubulk', '.uasset', '.umap', '.uexp', '.ubulk', '.uptnl'] as const;

/**
 * The package a file belongs to, as its path without the package-file extension, lower case (`a/b/x.uexp` and
 * `A/B/X.uasset` give `a/b/x`); undefined for a file that is not part of a package.
 */
export function packageKey(path: string): string | undefined {
  const lower = path.toLowerCase();
  for (const ext of PACKAGE_FILE_EXTENSIONS) if (lower.endsWith(ext) && lower.length > ext.length) return lower.slice(0, -ext.length);
  return undefined;
}

/** Whether the file is a package's header file (`.uasset`/`.umap`), which names the package. */
export function isPackageHeaderFile(path: string): boolean {
  return /\.(uasset|umap)$/i.test(path);
}
