import { IoStoreError } from '../../errors.js';
import { isLegacyPackage } from '../../legacy/package.js';
import type { PakEntry } from '../../pak/read.js';
import { quote } from '../../util/quote.js';
import { formatBytes, renderJson, renderTable } from '../format.js';
import { cliCodecs, keyRing, type KeyArgs } from '../keys.js';
import { openPakForCli } from '../pak-open.js';
import { plural } from '../plural.js';
import { inspectLegacyBytes, type LegacyInspectOptions } from './inspect-legacy.js';

const PACKAGE = /\.(uasset|umap)$/i;

/**
 * `inspect <x.pak> [package]`: a package inside a pak (a legacy one with its .uexp, read from the pak), found by
 * path below the mount point or its tail, with or without extension; without a package, the packages it holds.
 */
export async function inspectPak(file: string, query: string | undefined, args: KeyArgs & { json?: boolean }, legacy: LegacyInspectOptions, showZen: (source: string, bytes: Uint8Array) => Promise<string>): Promise<string> {
  const a = await openPakForCli(file, await keyRing(args));
  try {
    const packages = a.pak.entries.filter((e) => PACKAGE.test(e.path));
    if (query === undefined) {
      if (args.json) return renderJson({ file, mountPoint: a.pak.mountPoint, count: packages.length, packages: packages.map((e) => ({ path: e.path, size: e.uncompressedSize })) });
      return `Pak:              ${file} (mount point ${a.pak.mountPoint})\nPackages:         ${plural(packages.length, 'package')}; name one to show it: iostore inspect ${file} <path or its tail>\n\n${renderTable(['path', 'size'], packages.map((e) => [e.path, formatBytes(e.uncompressedSize)]), ['left', 'right'])}`;
    }
    const entry = findEntry(packages, query, file);
    const codecs = await cliCodecs(args);
    const bytes = await a.readAll(entry, codecs);
    const source = `${file}/${entry.path}`;
    if (!isLegacyPackage(bytes)) return showZen(source, bytes);
    const uexpPath = entry.path.replace(PACKAGE, '.uexp').toLowerCase();
    const uexpEntry = a.pak.entries.find((e) => e.path.toLowerCase() === uexpPath);
    const uexp = uexpEntry ? await a.readAll(uexpEntry, codecs) : undefined;
    // The mount point places the package below its Content folder (the name of UE4 packages, which store None).
    return inspectLegacyBytes(`${a.pak.mountPoint.replace(/^(\.\.\/)+/, '')}${entry.path}`, bytes, uexp, !!args.json, legacy).replace(/^Package: {10}/, `Pak entry:        ${source}\nPackage:          `);
  } finally {
    await a.close();
  }
}

/** The package entry a query names: its whole path, or a tail of whole components, with or without extension. */
function findEntry(entries: readonly PakEntry[], query: string, file: string): PakEntry {
  const q = query.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase();
  const stem = q.replace(PACKAGE, '');
  const exact = entries.filter((e) => e.path.toLowerCase() === q || e.path.toLowerCase().replace(PACKAGE, '') === stem);
  const tail = exact.length > 0 ? exact : entries.filter((e) => e.path.toLowerCase().replace(PACKAGE, '').endsWith(`/${stem}`));
  if (tail.length === 1) return tail[0]!;
  if (tail.length === 0) throw new IoStoreError('NOT_FOUND', `no package ${quote(query)} in the pak (see: iostore inspect ${file})`, { file });
  throw new IoStoreError('USAGE', `${tail.length} packages end with ${quote(query)}: ${tail.slice(0, 5).map((e) => e.path).join(', ')}${tail.length > 5 ? ', ...' : ''}; give more of the path`, { file });
}
