/**
 * The peak RSS of a child process, as an expression for the child's own script to print (bytes). The child's
 * `process.resourceUsage().maxRSS` will not do: Linux carries over exec the peak of the copy of the parent that fork
 * made, so there it read as at least the test worker's own RSS (~300 MB once a worker has run many test files).
 * VmHWM in /proc/self/status is the peak of the process since its exec; elsewhere maxRSS is what there is.
 */
export const CHILD_PEAK_RSS_BYTES = `(() => {
  try {
    return Number(/^VmHWM:\\s+(\\d+) kB/m.exec(process.getBuiltinModule('node:fs').readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
  } catch {
    return process.resourceUsage().maxRSS * 1024;
  }
})()`;
