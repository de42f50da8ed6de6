import { expect } from 'vitest';

const view = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length);

/**
 * Byte equality without vitest's deep equality, which walks a Uint8Array element by element (toEqual on a few MB
 * took seconds); when they differ, the failure names the lengths and the first offset that differs.
 */
export function expectSameBytes(actual: Uint8Array | undefined, expected: Uint8Array | undefined, what?: string): void {
  if (actual !== undefined && expected !== undefined && view(actual).equals(view(expected))) return;
  const describe = (b: Uint8Array | undefined) => (b === undefined ? 'undefined' : `${b.length} bytes`);
  let at = 0;
  if (actual !== undefined && expected !== undefined) while (at < actual.length && at < expected.length && actual[at] === expected[at]) at++;
  expect(`${describe(actual)}, first difference at offset ${at}`, what).toBe(`${describe(expected)}, equal`);
}
