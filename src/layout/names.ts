import { closeSync, lstatSync, openSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { quote } from '../util/quote.js';
import { MANIFEST_NAME } from './manifest.js';
import { KeyTable } from '../util/key-table.js';

/** A name given to an output file that another file of the run already took, and the free name used instead. */
export interface Renamed {
  /** The path asked for. */
  path: string;
  /** The path written. */
  written: string;
  /** The path (as written) it collided with. */
  clash: string;
  /** The other files of its group (a package's .uexp), each renamed alike. */
  with?: Array<{ path: string; written: string }>;
  /**
   * Why they collide: the same path, a path that differs only in case (or Unicode form), a file and a folder, or the
   * name of a file the run writes itself (the manifest).
   */
  why: 'same path' | 'case' | 'file and folder' | 'reserved';
}

/**
 * The names of one run's output files, so that no file replaces another without a word: two entries with the same
 * path (a pak may list one twice), paths that differ only in case on a file system that ignores case, a file where
 * another entry needs a folder, and the manifest's own name. A later path that collides gets a free name with a
 * suffix (`Foo (2).txt`; for a group such as a .uasset and its .uexp, the same suffix for all), and a folder that
 * collides with a file is renamed alike for every file below it. Claims are made in plan order: the first keeps
 * its name.
 */
type Clash = { path: string; why: Renamed['why'] };

export class OutputNames {
  /**
   * Written file paths by key, each a reference (see `text`): a path the caller can make again (`resolve`) is not
   * kept here as a string, so a game's 500,000 output paths cost a few bytes each.
   */
  private readonly files = new KeyTable((ref) => this.key(this.text(ref)));
  /** Paths kept as strings: those claimed without a reference, renamed ones, reserved names. */
  private readonly own: string[] = [];
  /** Written folder paths by key, and the folder each asked-for folder was written as. */
  private readonly folders = new Set<string>();
  private readonly folderOf = new Map<string, { folder: string; clash?: Clash }>();
  /** The next suffix to try for a name: a pak listing one path 100,000 times must not probe 100,000 suffixes each. */
  private readonly nextSuffix = new Map<string, number>();
  private readonly reserved: ReadonlySet<string>;
  readonly renamed: Renamed[] = [];

  /** `caseInsensitive`: the output's file system ignores case (see `ignoresCase`); `reserved`: names the run writes itself. */
  constructor(
    readonly caseInsensitive: boolean,
    reserved: readonly string[] = [MANIFEST_NAME],
    /**
     * The path a claim's reference stands for (`claim(path, ref)`): the path as written, which is the path asked for
     * (a claim that is renamed keeps its written name itself).
     */
    private readonly resolve?: (ref: number) => string,
  ) {
    for (const r of reserved) this.files.set(this.key(r), this.keep(r));
    this.reserved = new Set(reserved.map((r) => this.key(r)));
  }

  /** A file's path from its reference in `files`: odd, one of `own`; even, the caller's (`resolve`). */
  private text(ref: number): string {
    return ref & 1 ? this.own[ref >>> 1]! : this.resolve!(ref >>> 1);
  }

  private keep(path: string): number {
    return this.own.push(path) * 2 - 1;
  }

  private fileAt(key: string): string | undefined {
    const ref = this.files.find(key);
    return ref < 0 ? undefined : this.text(ref);
  }

  /** The name a path has on the file system: case and Unicode form folded where it ignores them. */
  key(path: string): string {
    return this.caseInsensitive ? path.normalize('NFC').toLowerCase() : path;
  }

  /**
   * The path to write `path` (`/`-separated, relative to the output) under: itself, or a free name. `ref`: a number
   * the constructor's `resolve` turns back into `path` (then this keeps no string for it unless it is renamed).
   */
  claim(path: string, ref?: number): string {
    // The common case first (a plan claims every output file): a free path in a folder kept as asked, taken with one
    // hash of its key and no array or object made.
    if (ref !== undefined && this.resolve) {
      const cut = path.lastIndexOf('/');
      const dir = cut < 0 ? '' : path.slice(0, cut);
      const placed = cut < 0 ? undefined : this.placedDirs.get(dir);
      if (cut < 0 || (placed !== undefined && placed.folder === dir && placed.clash === undefined)) {
        const k = this.key(path);
        if (!this.folders.has(k) && this.files.addIfAbsent(k, ref * 2) < 0) return path;
      }
    }
    return this.claimGroup([path], ref)[0]!;
  }

  /**
   * Claims paths that must keep one stem (a legacy package: `X.uasset` and `X.uexp`): when any collides, all get the
   * same suffix.
   */
  claimGroup(paths: readonly string[], ref?: number): string[] {
    const placed = paths.map((p) => this.place(p));
    const base = this.key(placed[0]!.path);
    let out = placed.map((p) => p.path);
    let clash = this.firstTaken(out);
    const first = clash ?? placed.find((p) => p.clash !== undefined)?.clash;
    if (clash !== undefined) {
      for (let n = this.nextSuffix.get(base) ?? 2; clash !== undefined; n++) {
        out = placed.map((p) => withSuffix(p.path, n));
        clash = this.firstTaken(out);
        this.nextSuffix.set(base, n + 1);
      }
    }
    out.forEach((p, k) => this.files.set(this.key(p), k === 0 && ref !== undefined && this.resolve && p === paths[0] ? ref * 2 : this.keep(p)));
    // A path moved only into the case its folder was first written in (a file system that ignores case) is no
    // rename: it is the same folder.
    if (first !== undefined && out.some((p, k) => p !== paths[k])) {
      const r: Renamed = { path: paths[0]!, written: out[0]!, clash: first!.path, why: first!.why };
      if (paths.length > 1) r.with = paths.slice(1).map((p, k) => ({ path: p, written: out[k + 1]! }));
      this.renamed.push(r);
    }
    return out;
  }

  /** The first of `paths` that an earlier file or folder holds: what it collides with, and how. */
  private firstTaken(paths: readonly string[]): Clash | undefined {
    for (const p of paths) {
      const k = this.key(p);
      const file = this.fileAt(k);
      if (file !== undefined) return { path: file, why: this.reserved.has(k) ? 'reserved' : file === p ? 'same path' : 'case' };
      if (this.folders.has(k)) return { path: p, why: 'file and folder' };
    }
    return undefined;
  }

  /**
   * `path` with each of its folders as written: a folder whose name a file took is written under a suffix (and the
   * file it collided with is returned).
   */
  private place(path: string): { path: string; clash?: Clash } {
    const cut = path.lastIndexOf('/');
    if (cut < 0) return { path };
    // A folder's place, once made, never changes: the files of a folder (thousands of them) take it from here.
    const dir = path.slice(0, cut);
    let placed = this.placedDirs.get(dir);
    if (placed === undefined) {
      placed = this.placeFolder(dir);
      this.placedDirs.set(dir, placed);
    }
    return { path: placed.folder === dir ? path : `${placed.folder}/${path.slice(cut + 1)}`, ...(placed.clash ? { clash: placed.clash } : {}) };
  }

  /** Each folder (`/`-separated, relative) as written, with the first clash met on the way. */
  private readonly placedDirs = new Map<string, { folder: string; clash?: Clash }>();

  private placeFolder(dir: string): { folder: string; clash?: Clash } {
    let asked = '';
    let written = '';
    let clash: Clash | undefined;
    for (const part of dir.split('/')) {
      asked = asked === '' ? part : `${asked}/${part}`;
      const k = this.key(asked);
      let f = this.folderOf.get(k);
      if (f === undefined) {
        let folder = written === '' ? part : `${written}/${part}`;
        const file = this.fileAt(this.key(folder));
        let why: Clash | undefined;
        if (file !== undefined) {
          why = { path: file, why: 'file and folder' };
          const wanted = this.key(folder);
          const stem = folder;
          for (let n = this.nextSuffix.get(wanted) ?? 2; this.files.find(this.key(folder)) >= 0 || this.folders.has(this.key(folder)); n++) {
            folder = withSuffix(stem, n);
            this.nextSuffix.set(wanted, n + 1);
          }
        }
        f = why ? { folder, clash: why } : { folder };
        this.folderOf.set(k, f);
        this.folders.add(this.key(folder));
      }
      clash ??= f.clash;
      written = f.folder;
    }
    return clash ? { folder: written, clash } : { folder: written };
  }
}

/** `dir/Foo (n).txt` for `dir/Foo.txt` (the suffix goes before the first dot of the name: `T (2).m.ubulk`). */
export function withSuffix(path: string, n: number): string {
  const cut = path.lastIndexOf('/') + 1;
  const name = path.slice(cut);
  const dot = name.indexOf('.', 1);
  return dot < 0 ? `${path} (${n})` : `${path.slice(0, cut)}${name.slice(0, dot)} (${n})${name.slice(dot)}`;
}

/** One line for a renamed output file, for a run's warnings. */
export function renamedWarning(r: Renamed): string {
  const own = r.clash === r.path || (r.why === 'case' && !r.with?.some((w) => w.path === r.clash));
  const why =
    r.why === 'reserved'
      ? `the output's own ${quote(r.clash)} has that name`
      : r.why === 'file and folder'
        ? `${quote(r.clash)} is both a file and a folder`
        : r.why === 'case'
          ? `${own ? 'it' : quote(r.with?.find((w) => w.path !== w.written)?.path ?? r.path)} would be the same file as ${quote(r.clash)} (this file system ignores case)`
          : own
            ? 'another entry has the same path'
            : `${quote(r.clash)} is another entry's path too`;
  const written = [r.written, ...(r.with ?? []).map((w) => w.written)].map((w) => quote(w)).join(' and ');
  const what = r.with ? `${quote(r.path)} (with ${r.with.map((w) => quote(w.path)).join(', ')})` : quote(r.path);
  return `${what}: ${why}: written as ${written}`;
}

/**
 * Whether the file system of `dir` (an existing folder) ignores case: a probe file is made and looked up in upper
 * case. Where `dir` cannot take one, the platform's usual file system decides (Windows and macOS: ignores case).
 */
export function ignoresCase(dir: string): boolean {
  const name = `.iostore-case-probe-${process.pid}`;
  const probe = join(dir, name);
  try {
    closeSync(openSync(probe, 'wx'));
  } catch {
    return process.platform === 'win32' || process.platform === 'darwin';
  }
  try {
    lstatSync(join(dir, name.toUpperCase()));
    return true;
  } catch {
    return false;
  } finally {
    try {
      unlinkSync(probe);
    } catch {
      // gone already
    }
  }
}
