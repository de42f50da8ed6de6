/** The page's viewer for legacy packages (`.uasset`/`.umap` with the `.uexp` beside them), over src/legacy. */
import { describeLegacyPackage, type LegacyPackageView } from '../legacy/describe.js';
import { isLegacyPackage, parseLegacyPackage } from '../legacy/package.js';
import { packageNameFromContentPath } from '../legacy/paths.js';
import type { PackageViewer } from './package-view.js';

/** The thumbnails' image bytes of each view shown (the view itself is what `inspect --json` prints: no bytes). */
const thumbnailBytes = new WeakMap<LegacyPackageView, Uint8Array[]>();

/** The compressed images of a legacy view's thumbnails, in the order of `view.thumbnails`. */
export const legacyThumbnailImages = (view: LegacyPackageView): Uint8Array[] => thumbnailBytes.get(view) ?? [];

export const legacyViewer: PackageViewer = {
  name: 'legacy',
  async describe(bytes, path, companion): Promise<LegacyPackageView | undefined> {
    if (!isLegacyPackage(bytes)) return undefined;
    // UE4 summaries name no package: its path under a Content folder (dropped folder or pak mount) gives it.
    const packageName = packageNameFromContentPath(path);
    const pkg = parseLegacyPackage(bytes, { source: path, ...(packageName ? { packageName } : {}) });
    const view = describeLegacyPackage(pkg, await companion('.uexp'));
    if (pkg.editorTables.thumbnails) thumbnailBytes.set(view, pkg.editorTables.thumbnails.map((t) => t.data));
    return view;
  },
};
