/**
 * Human-readable byte count: exact bytes below 1 KiB, else binary units with one decimal, or with `precise` three
 * significant digits (what the page's narrow columns show: 1.35 KiB, 12.1 KiB, 335 KiB).
 */
export function formatBytes(n: number, o: { precise?: boolean } = {}): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = -1;
  do {
    v /= 1024;
    u++;
  } while (v >= 1024 && u < units.length - 1);
  const digits = o.precise ? (v < 10 ? 2 : v < 100 ? 1 : 0) : 1;
  return `${v.toFixed(digits)} ${units[u]}`;
}
