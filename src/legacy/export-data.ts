import { IoStoreError } from '../errors.js';
import type { LegacyPackage } from './package.js';
import { LEGACY_PACKAGE_TAG } from './versions.js';

/** Where one export's data lies: in the `.uexp`, or in the `.uasset` for packages that have none. */
export interface LegacyExportSpan {
  /** Offset in the `.uexp` (the export's serial offset minus the header size), or in the `.uasset`. */
  offset: number;
  size: number;
}

/** True when `bytes` end with the package file tag (the engine's end-of-package marker). */
export function hasUexpTag(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(bytes.length - 4, true) === LEGACY_PACKAGE_TAG;
}

/**
 * The span of each export in the `.uexp`, checked: every export lies inside it, before the closing package tag
 * (`tagged`, the default; a `.uexp` shipped without its tag may be filled to its end). `uexpSize` is its length.
 */
export function legacyExportSpans(pkg: LegacyPackage, uexpSize: number, tagged = true): LegacyExportSpan[] {
  const header = pkg.summary.totalHeaderSize;
  const limit = uexpSize - (tagged ? 4 : 0);
  return pkg.exports.map((e, i) => {
    const offset = e.serialOffset - header;
    if (offset < 0 || e.serialSize < 0 || offset + e.serialSize > limit) {
      throw new IoStoreError('BAD_VALUE', `export ${i} (offset ${e.serialOffset}, ${e.serialSize} bytes) lies outside the ${uexpSize}-byte .uexp that follows the ${header}-byte header`, {
        file: pkg.source,
        offset: pkg.summary.exportOffset + i * pkg.layout.exportEntrySize,
      });
    }
    return { offset, size: e.serialSize };
  });
}

/**
 * The span of each export in the `.uasset` itself, for packages whose export data follows the header there (UE4
 * cooks without a `.uexp`, editor packages): every export between the header's end and the file's.
 */
export function legacyInlineExportSpans(pkg: LegacyPackage): LegacyExportSpan[] {
  const header = pkg.summary.totalHeaderSize;
  const size = pkg.uasset.length;
  return pkg.exports.map((e, i) => {
    if (e.serialSize < 0 || e.serialOffset < header || e.serialOffset + e.serialSize > size) {
      throw new IoStoreError('BAD_VALUE', `export ${i} (offset ${e.serialOffset}, ${e.serialSize} bytes) lies outside the export data of the ${size}-byte .uasset (its header ends at ${header})`, {
        file: pkg.source,
        offset: pkg.summary.exportOffset + i * pkg.layout.exportEntrySize,
      });
    }
    return { offset: e.serialOffset, size: e.serialSize };
  });
}

/** True when the package's export data is in its `.uasset` (the header ends before the file does). */
export function hasInlineExportData(pkg: LegacyPackage): boolean {
  return pkg.summary.totalHeaderSize < pkg.uasset.length;
}

/** Checks that the `.uexp` ends with the package file tag (the engine's end-of-package marker). */
export function checkUexpTag(uexp: Uint8Array, source = '.uexp'): void {
  if (uexp.length < 4) throw new IoStoreError('TRUNCATED', `the .uexp has ${uexp.length} bytes, too few for its closing package tag`, { file: source, offset: 0 });
  if (!hasUexpTag(uexp)) {
    const tag = new DataView(uexp.buffer, uexp.byteOffset, uexp.byteLength).getUint32(uexp.length - 4, true);
    throw new IoStoreError('BAD_MAGIC', `the .uexp does not end with the package tag 0x9e2a83c1 (found 0x${tag.toString(16)})`, { file: source, offset: uexp.length - 4 });
  }
}

/**
 * Each export's data, as views, in export-map order: from `uexp` (its closing tag checked first), or without one
 * from the `.uasset` the package was read from.
 */
export function legacyExportData(pkg: LegacyPackage, uexp?: Uint8Array, source = `${pkg.source} (.uexp)`): Uint8Array[] {
  if (uexp === undefined) return legacyInlineExportSpans(pkg).map((s) => pkg.uasset.subarray(s.offset, s.offset + s.size));
  checkUexpTag(uexp, source);
  return legacyExportSpans(pkg, uexp.length).map((s) => uexp.subarray(s.offset, s.offset + s.size));
}
