// Which form (zen in containers, legacy in paks) each package of a run comes from, when both are at hand.
import type { ContainerReader } from '../cas/container-reader.js';
import { packageKey } from '../layout/package-files.js';
import type { MountEntry } from '../mount/mount.js';
import type { OpenedPaks } from './pak-unpack.js';
import { withoutExtension } from '../util/file-extension.js';

/** Which source each package comes from when containers and paks both hold packages: see packageWinners. */
export interface PackageWinners {
  /** Containers and paks in mount order for whole packages, with the form their packages take. */
  sources: Array<{ name: string; form: 'zen' | 'legacy' }>;
  /** Package (see packageKey) -> index in `sources` of its mount-order winner. */
  byPackage: Map<string, number>;
}

/**
 * The mount-order winner of each package held by containers (zen form) and paks (legacy form): the highest in mount
 * order of the sources holding any of its files. A package never mixes the two forms (a zen `.uasset` beside a
 * legacy `.uexp` is a broken package): the files of the other form are left to the winner. Within the winner's form
 * the engine's own rule stays: containers override chunk by chunk (a patch container may hold only the chunks that
 * changed), paks file by file. Mount order is the priority (`_N_P`); at equal priority a container wins over a pak
 * (the zen loader looks in the containers' package store first), then the later name as in byMountOrder.
 */
export function packageWinners(opened: ReadonlyArray<{ entry: MountEntry; reader: ContainerReader }>, pakOpen: OpenedPaks | undefined): PackageWinners | undefined {
  const pakList = pakOpen?.paks ?? [];
  // Only where both forms are at hand: a game's companion paks hold no packages.
  const pakPackages = pakList.some(({ archive, prefix }) => archive.pak.entries.some((e) => packageKey(prefix + e.path) !== undefined));
  if (opened.length === 0 || !pakPackages) return undefined;
  type Source = { name: string; form: 'zen' | 'legacy'; priority: number; kind: number; sortName: string; container?: number; pak?: number };
  const list: Source[] = [
    ...opened.map(({ entry }, c): Source => ({ name: entry.name, form: 'zen', priority: entry.priority, kind: 1, sortName: entry.name, container: c })),
    ...pakList.map(({ mount }, k): Source => ({ name: mount.name, form: 'legacy', priority: mount.priority, kind: 0, sortName: withoutExtension(mount.name, '.pak'), pak: k })),
  ];
  list.sort((a, b) => a.priority - b.priority || a.kind - b.kind || (a.sortName < b.sortName ? -1 : a.sortName > b.sortName ? 1 : 0));
  const byPackage = new Map<string, number>();
  list.forEach((src, s) => {
    if (src.container !== undefined) {
      const toc = opened[src.container]!.reader.toc;
      for (let i = 0; i < toc.chunkCount; i++) {
        const path = toc.chunkPath(i);
        const key = path === undefined ? undefined : packageKey(path);
        if (key !== undefined) byPackage.set(key, s);
      }
      return;
    }
    const { archive, prefix } = pakList[src.pak!]!;
    // A patch pak's delete record takes a lower pak's package away.
    for (const d of archive.pak.deleted) {
      const key = packageKey(prefix + d);
      const w = key === undefined ? undefined : byPackage.get(key);
      if (w !== undefined && list[w]!.pak !== undefined) byPackage.delete(key!);
    }
    for (const e of archive.pak.entries) {
      const key = packageKey(prefix + e.path);
      if (key !== undefined) byPackage.set(key, s);
    }
  });
  return { sources: list.map(({ name, form }) => ({ name, form })), byPackage };
}

/**
 * The package winners with the warnings their losers get: a package's files of the other form left out are said once
 * per package and source (a zen package over legacy files, or the reverse, is what a modder must know; a patch over
 * its base is the normal case and says nothing).
 */
export class PackageForms {
  private readonly said = new Set<string>();

  constructor(
    readonly winners: PackageWinners,
    private readonly warnings: string[],
  ) {}

  /** Package `key`'s file `path` in `loser` (of form `loserForm`) is left out for the source `winner`'s. */
  leftOut(key: string, path: string, loser: string, loserForm: string, winner: number): void {
    const w = this.winners.sources[winner]!;
    if (w.form === loserForm || this.said.has(`${key}\0${loser}`)) return;
    this.said.add(`${key}\0${loser}`);
    this.warnings.push(`${path.replace(/(\.m)?\.[^./]+$/, '')}: the package comes from ${w.name} (${w.form}); ${loser}'s ${loserForm} files are left out`);
  }
}
