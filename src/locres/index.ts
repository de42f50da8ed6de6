/** Localization resources (.locres): the translated texts of one culture by namespace and key. */
export { isLocres, parseLocres, LOCRES_VERSIONS } from './locres.js';
export type { Locres, LocresEntry, LocresVersionName } from './locres.js';
