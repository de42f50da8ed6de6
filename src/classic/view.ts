import type { ClassicPackage } from './package.js';

const flagsHex = (v: number) => `0x${v.toString(16).padStart(8, '0')}`;

/** The JSON form `inspect --json` prints for a classic package; flags as 8-digit hex strings like zen packages'. */
export interface ClassicPackageView {
  format: 'classic';
  version: number;
  licenseeVersion: number;
  packageFlags: string;
  names: Array<{ name: string; flags: string }>;
  imports: Array<{ classPackage: string; className: string; outer: string | null; name: string; path: string }>;
  /** `className` is the class's path (`Core.Class` when the reference is 0: the object is a class). */
  exports: Array<{ className: string; superName: string | null; outer: string | null; name: string; flags: string; serialSize: number; serialOffset: number | null; path: string }>;
}

/** The class of an export whose class reference is 0: such an object is itself a class. */
export const CLASSIC_CLASS_CLASS = 'Core.Class';

export function describeClassicPackage(pkg: ClassicPackage): ClassicPackageView {
  return {
    format: 'classic',
    version: pkg.summary.fileVersion,
    licenseeVersion: pkg.summary.licenseeVersion,
    packageFlags: flagsHex(pkg.summary.packageFlags),
    names: pkg.names.map((n) => ({ name: n.name, flags: flagsHex(n.flags) })),
    imports: pkg.imports.map((i) => ({ classPackage: i.classPackage, className: i.className, outer: pkg.objectPath(i.outerRef), name: i.name, path: i.path })),
    exports: pkg.exports.map((e) => ({
      className: pkg.objectPath(e.classRef) ?? CLASSIC_CLASS_CLASS,
      superName: pkg.objectPath(e.superRef),
      outer: pkg.objectPath(e.outerRef),
      name: e.name,
      flags: flagsHex(e.flags),
      serialSize: e.serialSize,
      serialOffset: e.serialOffset,
      path: e.path,
    })),
  };
}
