import { fstatSync } from 'node:fs';
import { writeSync } from '../util/sync-fs.js';
import { createRequire } from 'node:module';
import { processBinding } from '../util/process-binding.js';

/** Where a command writes: injectable so tests run commands in-process and read their output. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is an interactive terminal (progress bars are drawn only then). */
  readonly isTTY: boolean;
  /**
   * The width of the terminal stdout writes to, or undefined when it writes to a pipe or a file: tables for people
   * fit a terminal (shortened paths, sizes in KiB/MiB) and stay whole and exact elsewhere.
   */
  readonly columns?: number | undefined;
  /** Writes UTF-8 text given as bytes (a long listing: no string made of it); `out` of its text where absent. */
  outBytes?(bytes: Uint8Array): void;
}

/** Writes UTF-8 bytes to `io`'s output: by `outBytes`, or as text. */
export function writeOutBytes(io: CliIO, bytes: Uint8Array): void {
  if (io.outBytes) io.outBytes(bytes);
  else io.out(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
}

/**
 * The process's standard streams, written with blocking writes to their descriptors. Node's process.stdout and
 * process.stderr objects cost a short command more than its own work to create (they load Node's stream modules,
 * and net or tty: ~5-10 ms of `list`), and a blocking write has all of its text out before the process exits.
 */
export const processIO: CliIO = {
  // UTF-8 without naming it: Buffer.from with an encoding name compiles Node's getEncodingOps on its first call.
  out: (t) => writeStd(1, Buffer.from(t)),
  outBytes: (b) => writeStd(1, b),
  err: (t) => writeStd(2, Buffer.from(t)),
  // Looked up when first asked: commands ask only when they could draw progress.
  get isTTY() {
    return (stderrIsTTY ??= isTerminal(2));
  },
  // Asked for by tables. Only a terminal reaches the tty module and the stdout stream object (costly to load and
  // create): a pipe, a file or /dev/null (what scripts, timings and the bench write to) is told without them.
  get columns() {
    stdoutColumns ??= isTerminal(1) ? process.stdout.columns || Number(process.env.COLUMNS) || 80 : 0;
    return stdoutColumns > 0 ? stdoutColumns : undefined;
  },
};

let stdoutColumns: number | undefined;

/**
 * Whether descriptor `fd` is a terminal. Asked of Node's tty binding (src/util/process-binding.ts), the call node:tty's
 * isatty makes: loading node:tty loads net and the stream modules, ~14 ms of `list` of the bench's 3,000 chunks
 * into /dev/null (a character device, as a terminal is). Without the binding, one fstat tells a pipe or a file, and
 * node:tty the character devices.
 */
function isTerminal(fd: number): boolean {
  const isTTY = processBinding<{ isTTY: (fd: number) => boolean }>('tty_wrap')?.isTTY;
  if (typeof isTTY === 'function') return isTTY(fd) === true;
  return characterDevice(fd) && (createRequire(import.meta.url)('node:tty') as typeof import('node:tty')).isatty(fd);
}

function characterDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

let stderrIsTTY: boolean | undefined;
/**
 * Descriptors written through their stream objects: on Windows always (a console needs Node's UTF-16 console
 * writes, or non-ASCII paths come out garbled), elsewhere once found non-blocking (EAGAIN): the stream waits for
 * the reader and writes the rest.
 */
const viaStream = new Set<1 | 2>(process.platform === 'win32' ? [1, 2] : []);

function writeStd(fd: 1 | 2, bytes: Uint8Array): void {
  if (viaStream.has(fd)) return toStream(fd, bytes);
  let at = 0;
  try {
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // `iostore list ... | head` closes the pipe early: that is the reader's choice, not an error.
    if (code === 'EPIPE') process.exit(process.exitCode ?? 0);
    if (code !== 'EAGAIN') throw e;
    viaStream.add(fd);
    toStream(fd, bytes.subarray(at));
  }
}

/**
 * Hands bytes to the descriptor's stream, which writes them later: a copy, since writers reuse their buffers (the
 * list rows are written a batch at a time from one). A Windows console is written text, which Node writes as UTF-16:
 * decoded across pieces, as a piece may end inside a character.
 */
function toStream(fd: 1 | 2, bytes: Uint8Array): void {
  const s = streamOf(fd);
  if (process.platform !== 'win32') return void s.write(Buffer.from(bytes));
  decoders[fd] ??= new (createRequire(import.meta.url)('node:string_decoder') as typeof import('node:string_decoder')).StringDecoder('utf8');
  const text = decoders[fd]!.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (text.length > 0) s.write(text);
}

const decoders: { [fd: number]: import('node:string_decoder').StringDecoder } = {};

/**
 * Whether text handed to a standard stream object (a non-blocking descriptor, or a Windows console) is still waiting
 * for its reader: the process must not be ended with process.exit() before it is out.
 */
export function stdWritesPending(): boolean {
  for (const fd of viaStream) if (streamOf(fd).writableLength > 0) return true;
  return false;
}

function streamOf(fd: 1 | 2): NodeJS.WriteStream {
  const s = fd === 1 ? process.stdout : process.stderr;
  if (s.listenerCount('error') === 0) {
    s.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  return s;
}

/** Exit codes of the CLI. */
export const ExitCode = { Ok: 0, Partial: 1, BadInput: 2 } as const;
