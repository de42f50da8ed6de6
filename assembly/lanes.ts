// Shared by the TOC loops (assembly/toc) and the rows writer (assembly/listing): their byte checks 16 lanes a step.

/** A mask of the first `n` of 16 byte lanes (all of them from 16 on): a check's last step ends at its last byte. */
@inline export function firstLanes(n: usize): v128 {
  return n >= 16 ? i8x16.splat(-1) : i8x16.lt_u(i8x16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), i8x16.splat(<i8>n));
}
