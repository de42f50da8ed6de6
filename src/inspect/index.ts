/** Readable views of zen packages and container headers, with references resolved where the context allows. */
export { describePackage, describeContainerHeader, containerHeaderVersionLabel } from './describe.js';
export type { PackageView, ContainerHeaderView, ResolveContext } from './describe.js';
export { readContainerHeader, containerPackageLoader, packageNamesFromToc, findPackageChunk, loadScriptObjects, scriptObjectsFromReader } from './context.js';
export { exportObjectPath, importedExportPaths, importedPackageIds, publicExportPaths } from './imports.js';
