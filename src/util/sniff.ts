/**
 * What a file is, from its first (or last) bytes: one table every format adds its row to, so a command that is
 * handed the wrong file can say what it got instead of failing deep inside the wrong parser.
 */
import { quote } from './quote.js';

export interface FileKind {
  /** Stable name scripts can branch on. */
  kind: string;
  /** For people: "a .utoc container table of contents". */
  label: string;
  test: (bytes: Uint8Array) => boolean;
}

const u32le = (b: Uint8Array, at: number): number | undefined =>
  b.length >= at + 4 ? (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0 : undefined;
const i32le = (b: Uint8Array, at: number): number | undefined => {
  const v = u32le(b, at);
  return v === undefined ? undefined : v | 0;
};
const startsWith = (b: Uint8Array, ascii: string): boolean =>
  b.length >= ascii.length && [...ascii].every((c, i) => b[i] === c.charCodeAt(0));

/** The engine's package file tag, first in every legacy and classic package (zen packages and .uexp files end with it). */
const PACKAGE_FILE_TAG = 0x9e2a83c1;
/** The pak footer magic; the footer is 44 to 262 bytes long depending on the pak version. */
const PAK_MAGIC = 0x5a6f12e1;
const PAK_FOOTER_MAX = 262;

/** Checked in order; the first match wins. Formats with a magic number go here (zen packages have none). */
export const FILE_KINDS: FileKind[] = [
  { kind: 'utoc', label: 'a .utoc container table of contents', test: (b) => startsWith(b, '-==--==--==--==-') },
  { kind: 'container-header', label: 'a UE5 container header', test: (b) => u32le(b, 0) === 0x496f436e },
  // UE4 and UE5 write a negative "legacy file version" after the tag; UE1-UE3 a positive file version.
  { kind: 'legacy-package', label: 'a legacy package (.uasset/.umap with its .uexp)', test: (b) => u32le(b, 0) === PACKAGE_FILE_TAG && (i32le(b, 4) ?? 0) < 0 },
  { kind: 'classic-package', label: 'a classic package (UE1-UE3)', test: (b) => u32le(b, 0) === PACKAGE_FILE_TAG && (i32le(b, 4) ?? -1) >= 0 },
  {
    kind: 'pak',
    label: 'a .pak file',
    test: (b) => {
      for (let at = b.length - 44; at >= Math.max(0, b.length - PAK_FOOTER_MAX); at--) if (u32le(b, at) === PAK_MAGIC) return true;
      return false;
    },
  },
  { kind: 'zip', label: 'a zip archive', test: (b) => startsWith(b, 'PK\u0003\u0004') },
  { kind: 'png', label: 'a PNG image', test: (b) => startsWith(b, '\u0089PNG') },
];

/** The first matching kind, or undefined. */
export function sniffFile(bytes: Uint8Array): FileKind | undefined {
  return FILE_KINDS.find((k) => k.test(bytes));
}

/** `starts with 0x2d3d3d2d2d3d3d2d "-==--==-"`: the first bytes in hex and as text (non-printable bytes as dots). */
export function describeStart(bytes: Uint8Array, n = 8): string {
  if (bytes.length === 0) return 'the file is empty';
  const head = bytes.subarray(0, n);
  let hex = '';
  let text = '';
  for (const c of head) {
    hex += c.toString(16).padStart(2, '0');
    text += c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : '.';
  }
  return `starts with 0x${hex} ${quote(text)}${bytes.length < n ? ` (${bytes.length} bytes in all)` : ''}`;
}

/**
 * Why a file is not one of `expected` (labels, e.g. ['a zen package', 'a container header']): what it is when its
 * bytes say, else what its first bytes look like.
 */
export function notExpectedKind(bytes: Uint8Array, expected: readonly string[]): string {
  const kind = sniffFile(bytes);
  const list = expected.length <= 1 ? (expected[0] ?? 'a known format') : `${expected.slice(0, -1).join(', ')} or ${expected[expected.length - 1]}`;
  return kind ? `this is ${kind.label}, not ${list}` : `not ${list} (${describeStart(bytes)})`;
}
