/**
 * Properties of exports as JSON, both ways: tagged and unversioned property data (with `.usmap` mappings), the
 * native structs games use, and the data after the properties of DataTable, CurveTable, StringTable and
 * UserDefinedEnum exports. Reading never loses a byte: what is not understood stays as hex, and writing an
 * unchanged document gives the original package back. Works on Uint8Arrays (Node and browser alike).
 */
export { readLegacyProps, readZenProps, legacyPropsPackage, zenPropsPackage, legacyExportBytes, zenExportBytes, zenPublicExports, scriptObjectPath } from './package-props.js';
export type { PackagePropsJson, PackagePropsResult, ReadPropsOptions } from './package-props.js';
export { applyLegacyProps, applyZenProps } from './apply.js';
export type { AppliedLegacy, AppliedZen } from './apply.js';
export { readExportProps, writeExportProps } from './export-props.js';
export type { ExportPropsJson, ExportInfo } from './export-props.js';
export type { PropJson } from './values.js';
export type { PropsPackage } from './context.js';
export { Session as PropsSession } from './prims.js';
export type { Json as PropsJsonValue } from './prims.js';
export { propsStats } from './stats.js';
export type { PropsStats } from './stats.js';
export { renderProps } from './render.js';
export { hexFieldLength as keptByteLength } from './io.js';
