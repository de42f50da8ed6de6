import { IoStoreError } from '../errors.js';
import type { LegacyPackage } from './package.js';
import { LEGACY_PACKAGE_TAG } from './versions.js';

/** Where one export's data lies in the `.uexp`. */
export interface LegacyExportSpan {
  /** Offset in the `.uexp` (the export's serial offset minus the header size). */
  offset: number;
  size: number;
}

/**
 * The span of each export in the `.uexp`, checked: every export lies inside it, before the closing package tag.
 * `uexpSize` is the `.uexp`'s length.
 */
export function legacyExportSpans(pkg: LegacyPackage, uexpSize: number): LegacyExportSpan[] {
  const header = pkg.summary.totalHeaderSize;
  return pkg.exports.map((e, i) => {
    const offset = e.serialOffset - header;
    if (offset < 0 || e.serialSize < 0 || offset + e.serialSize > uexpSize - 4) {
      throw new IoStoreError('BAD_VALUE', `export ${i} (offset ${e.serialOffset}, ${e.serialSize} bytes) lies outside the ${uexpSize}-byte .uexp that follows the ${header}-byte header`, {
        file: pkg.source,
        offset: pkg.summary.exportOffset + i * pkg.layout.exportEntrySize,
      });
    }
    return { offset, size: e.serialSize };
  });
}

/** Checks that the `.uexp` ends with the package file tag (the engine's end-of-package marker). */
export function checkUexpTag(uexp: Uint8Array, source = '.uexp'): void {
  if (uexp.length < 4) throw new IoStoreError('TRUNCATED', `the .uexp has ${uexp.length} bytes, too few for its closing package tag`, { file: source, offset: 0 });
  const tag = new DataView(uexp.buffer, uexp.byteOffset, uexp.byteLength).getUint32(uexp.length - 4, true);
  if (tag !== LEGACY_PACKAGE_TAG) {
    throw new IoStoreError('BAD_MAGIC', `the .uexp does not end with the package tag 0x9e2a83c1 (found 0x${tag.toString(16)})`, { file: source, offset: uexp.length - 4 });
  }
}

/** Each export's data, as views into `uexp`, in export-map order. Checks the closing tag first. */
export function legacyExportData(pkg: LegacyPackage, uexp: Uint8Array, source = `${pkg.source} (.uexp)`): Uint8Array[] {
  checkUexpTag(uexp, source);
  return legacyExportSpans(pkg, uexp.length).map((s) => uexp.subarray(s.offset, s.offset + s.size));
}
