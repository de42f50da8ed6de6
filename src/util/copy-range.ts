import { createRequire } from 'node:module';

/**
 * Copies `length` bytes at `offset` of the file open as `fdIn` to the current position of `fdOut` inside the kernel;
 * returns the bytes copied: fewer than `length` when the copy could not go on (an error, the source's end), the
 * caller then writing the chunk its usual way.
 */
export type CopyRangeSync = (fdIn: number, offset: number, fdOut: number, length: number) => number;

/**
 * Linux's copy_file_range(2), through koffi (an optional dependency) when it loads: a stored chunk of an unpack goes
 * from the .ucas to its file without passing through this process's memory, which saves a copy of every byte
 * (the read into a buffer) and the read calls. Undefined elsewhere, without koffi, or when it fails to load; loaded
 * once per thread, on first ask (koffi and its binding take ~20-80 ms to load: asked only by long runs).
 */
export function copyRangeSync(): CopyRangeSync | undefined {
  if (loaded === undefined) loaded = load() ?? null;
  return loaded ?? undefined;
}

let loaded: CopyRangeSync | null | undefined;

/** The package's name in a variable: the bundler leaves it to be found at run time (an optional dependency). */
const KOFFI = 'koffi';

interface KoffiLike {
  load(path: string): { func(signature: string): (...args: unknown[]) => unknown };
}

function load(): CopyRangeSync | undefined {
  if (process.platform !== 'linux' || process.env.IOSTORE_NO_COPY_RANGE) return undefined;
  let copy: (...args: unknown[]) => unknown;
  try {
    const koffi = createRequire(import.meta.url)(KOFFI) as KoffiLike;
    copy = koffi.load('libc.so.6').func('intptr_t copy_file_range(int fd_in, void *off_in, int fd_out, void *off_out, size_t len, unsigned int flags)');
  } catch {
    return undefined;
  }
  // The source offset (a loff_t the call advances), as two 32-bit halves: no BigInt a call.
  const at = new Int32Array(2);
  return (fdIn, offset, fdOut, length) => {
    let done = 0;
    while (done < length) {
      const from = offset + done;
      at[0] = from % 0x1_0000_0000;
      at[1] = Math.floor(from / 0x1_0000_0000);
      const n = Number(copy(fdIn, at, fdOut, null, length - done, 0));
      if (!(n > 0)) break;
      done += n;
    }
    return done;
  };
}
