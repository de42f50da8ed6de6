/**
 * The library's one error type. Every failure caused by the bytes of a file or by the caller's input carries a
 * stable `code`, the `file` it concerns and, where it makes sense, the byte `offset` that was wrong, so that the
 * CLI can print a single line and scripts can branch on `code`.
 */
import { escapeControl } from './util/quote.js';

export type IoStoreErrorCode =
  | 'TRUNCATED' // the data ends before a structure it declares
  | 'BAD_MAGIC' // not a file of the expected kind
  | 'BAD_VALUE' // a field holds a value the format does not allow
  | 'SIZE_MISMATCH' // the sections do not add up to the file's size
  | 'UNSUPPORTED' // a valid file using something this tool does not implement
  | 'NEEDS_KEY' // encrypted data and no key was given
  | 'BAD_KEY' // the key is malformed or does not decrypt the data
  | 'UNSAFE_PATH' // a path from the file would escape the output folder
  | 'NOT_FOUND' // a chunk, file or codec that was asked for is not there
  | 'CODEC' // a codec failed or is missing
  | 'HASH_MISMATCH' // data does not match the hash stored for it
  | 'USAGE' // the caller passed something invalid
  | 'IO'; // the operating system refused a read or write

export class IoStoreError extends Error {
  readonly code: IoStoreErrorCode;
  readonly file: string | undefined;
  readonly offset: number | undefined;

  constructor(code: IoStoreErrorCode, message: string, where: { file?: string; offset?: number } = {}) {
    super(formatMessage(message, where.file, where.offset));
    this.name = 'IoStoreError';
    this.code = code;
    this.file = where.file;
    this.offset = where.offset;
  }
}

/**
 * Messages are one line: text from a file should already be quoted with `quote()` (util/quote.ts), and this catches
 * whatever was not (a user's file name with a newline, a message built from another library's error).
 */
function formatMessage(raw: string, fileName?: string, offset?: number): string {
  const message = escapeControl(raw);
  const file = fileName === undefined ? undefined : escapeControl(fileName);
  const at = offset === undefined ? '' : ` at offset 0x${offset.toString(16)}`;
  if (file === undefined) return offset === undefined ? message : `${message}${at}`;
  return `${file}${at}: ${message}`;
}

/** Whether `e` is an IoStoreError (a type guard for catch clauses, whose error is `unknown`). */
export function isIoStoreError(e: unknown): e is IoStoreError {
  return e instanceof IoStoreError;
}
