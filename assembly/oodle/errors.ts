/**
 * How the decoder fails: the message and the position go into globals that the JavaScript side reads (and words as
 * the TypeScript decoder does), then the call traps (unreachable). A trap unwinds the whole decode at once, as the
 * TypeScript decoder's throw does, and leaves the instance usable for the next call.
 */

/** Addresses of the current stream's first byte and of the output's: positions in messages count from them. */
export let srcBase: usize = 0;
export let outBase: usize = 0;
export let errorMessage: usize = 0;
export let errorAt: i32 = 0;
/** A number that follows the message (-1: none). */
export let errorValue: i32 = -1;
/** Whether `errorAt` counts output bytes rather than stream bytes. */
export let errorInOutput: bool = false;

export function setSource(src: usize, out: usize): void {
  srcBase = src;
  outBase = out;
  errorMessage = 0;
  errorAt = 0;
  errorValue = -1;
  errorInOutput = false;
}

/** Fails the decode with `what` at stream address `at`. */
export function corrupt(what: string, at: usize): void {
  errorMessage = changetype<usize>(what);
  errorAt = <i32>(at - srcBase);
  unreachable();
}

/** Fails the decode with `what` and the number `value` at stream address `at`. */
export function corruptWith(what: string, value: i32, at: usize): void {
  errorValue = value;
  corrupt(what, at);
}

/** Fails the decode with `what` at output address `at`. */
export function corruptAtOutput(what: string, at: usize): void {
  errorMessage = changetype<usize>(what);
  errorAt = <i32>(at - outBase);
  errorInOutput = true;
  unreachable();
}
