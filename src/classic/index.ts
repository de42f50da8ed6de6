/**
 * Classic Unreal packages (Unreal Engine 1 and 2: `.u`, `.utx`, `.unr`, `.uax`, `.umx`): detection, compact
 * indices, and a parser for the header, name, import and export tables with object references resolved to paths.
 */
export { CLASSIC_PACKAGE_TAG, ClassicVersion, isClassicPackage } from './version.js';
export { readCompactIndex, encodeCompactIndex } from './compact-index.js';
export { parseClassicPackage } from './package.js';
export type { ClassicPackage, ClassicSummary, ClassicName, ClassicImport, ClassicExport, ClassicGeneration, ClassicExtent, ParseClassicPackageOptions } from './package.js';
export { describeClassicPackage, CLASSIC_CLASS_CLASS } from './view.js';
export type { ClassicPackageView } from './view.js';
