/** `.usmap` type mappings (names, enums, struct layouts) for reading unversioned properties. */
export { parseUsmap, usmapStruct, usmapPropertyAt, USMAP_MAGIC, UsmapVersion, USMAP_COMPRESSION, USMAP_PROPERTY_TYPES } from './usmap.js';
export type { Usmap, UsmapStruct, UsmapProperty, UsmapPropertyType, UsmapEnum, UsmapCompression, ParseUsmapOptions } from './usmap.js';
