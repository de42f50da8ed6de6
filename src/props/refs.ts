/**
 * Object references of export data (FPackageIndex: <0 import, >0 export, 0 null) as object paths, both ways. Paths
 * that are not unique in the package, or that cannot be resolved, use the stand-in `#<index>`, so that every index
 * renders to a string that writes back to it.
 */
export class ObjectRefs {
  private readonly byIndex = new Map<number, string>();
  private readonly byPath = new Map<string, number>();

  /** `paths` yields each import/export index with its path (undefined when unresolvable). */
  constructor(entries: Iterable<[number, string | undefined]>) {
    for (const [index, path] of entries) {
      if (path === undefined || path === '' || path.startsWith('#') || this.byPath.has(path)) continue;
      this.byPath.set(path, index);
      this.byIndex.set(index, path);
    }
  }

  path(index: number): string {
    if (index === 0) return '';
    return this.byIndex.get(index) ?? `#${index}`;
  }

  index(path: string): number | undefined {
    if (path === '') return 0;
    const i = this.byPath.get(path);
    if (i !== undefined) return i;
    const m = /^#(-?\d+)$/.exec(path);
    return m ? Number(m[1]) : undefined;
  }
}

/** The object name at the end of an object path (`/Game/A.B_C:Sub` -> `Sub`). */
export function objectNameOf(path: string): string {
  const m = /[.:]([^.:/]+)$/.exec(path);
  return m ? m[1]! : path.slice(path.lastIndexOf('/') + 1);
}
