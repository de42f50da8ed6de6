import { describeClassicPackage, parseClassicPackage, type ClassicPackage, type ClassicPackageView } from '../../classic/index.js';
import { IoStoreError } from '../../errors.js';
import { renderJson, renderTable } from '../format.js';
import { ExitCode, type CliIO } from '../io.js';

/** `inspect` of a classic (UE1/UE2) package: its header and tables, or the JSON view. */
export function inspectClassic(bytes: Uint8Array, args: { file: string; package?: string; json?: boolean }, io: CliIO): number {
  if (args.package !== undefined) throw new IoStoreError('USAGE', `"${args.package}": a classic package holds objects, not packages; inspect the file alone`, { file: args.file });
  const pkg = parseClassicPackage(bytes, { source: args.file });
  const view = describeClassicPackage(pkg);
  io.out(args.json ? renderJson(view) : renderClassic(pkg, view));
  return ExitCode.Ok;
}

function renderClassic(pkg: ClassicPackage, v: ClassicPackageView): string {
  const s = pkg.summary;
  const { names, imports, exports, heritage } = pkg.extents;
  const range = (e: { offset: number; end: number }) => `0x${e.offset.toString(16)}-0x${e.end.toString(16)}`;
  const head = [
    `Package:          ${pkg.packageName}`,
    `Format:           classic Unreal package, file version ${s.fileVersion}, licensee ${s.licenseeVersion}, header ${s.headerSize} bytes`,
    `Package flags:    ${v.packageFlags}`,
    `GUID:             ${s.guid ?? '-'}`,
    s.heritageCount === undefined
      ? `Generations:      ${s.generations.map((g) => `${g.exportCount} exports/${g.nameCount} names`).join(', ') || '-'}`
      : `Heritage:         ${s.heritageCount} GUIDs at ${heritage ? range(heritage) : '-'}`,
    `Names:            ${s.nameCount} at ${range(names)}`,
    `Imports:          ${s.importCount} at ${range(imports)}`,
    `Exports:          ${s.exportCount} at ${range(exports)}`,
    '',
  ].join('\n');
  const out = [head, `\nImports (${v.imports.length}):\n`];
  out.push(renderTable(['#', 'class', 'path'], v.imports.map((i, n) => [String(n), `${i.classPackage}.${i.className}`, i.path]), ['right', 'left', 'left']));
  out.push(`\nExports (${v.exports.length}):\n`);
  out.push(
    renderTable(
      ['#', 'class', 'path', 'super', 'flags', 'offset', 'size'],
      v.exports.map((e, n) => [String(n), e.className, e.path, e.superName ?? '', e.flags, e.serialOffset === null ? '-' : String(e.serialOffset), String(e.serialSize)]),
      ['right', 'left', 'left', 'left', 'left', 'right', 'right'],
    ),
  );
  out.push(`\nNames (${v.names.length}):\n`);
  out.push(renderTable(['#', 'name', 'flags'], v.names.map((x, n) => [String(n), x.name, x.flags]), ['right', 'left', 'left']));
  return out.join('');
}
