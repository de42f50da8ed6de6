/** Conversions between the zen (IoStore) and legacy (.uasset/.uexp) package forms. */
export { zenToLegacy, legacyVersionsFor } from './zen-to-legacy.js';
export type { ZenToLegacyOptions, ZenToLegacyResult } from './zen-to-legacy.js';
export { ScriptObjectIndex, ZenResolver, objectRefPath, publicExportHash, splitName } from './naming.js';
export type { NamePart, ObjectRef, PackageDirectory } from './naming.js';
export { toLegacy } from './to-legacy.js';
export type { ToLegacyOptions, ToLegacyResult, ToLegacyProgress, ToLegacyFailure } from './to-legacy.js';
export { legacyToZen, zenLayoutForLegacy } from './legacy-to-zen.js';
export type { LegacyToZenOptions, ConvertedZenPackage } from './legacy-to-zen.js';
