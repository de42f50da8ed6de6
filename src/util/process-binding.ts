/**
 * One of Node's own bindings, reached through `process.binding` (the objects Node's public modules call): the CLI's
 * short runs take a function or two from one where the public module would load much more (node:v8 loads the stream
 * modules; node:tty loads net and the streams). Reaching one may print a deprecation warning (DEP0111: always for
 * some bindings, for all under --pending-deprecation), which is held back for that one access: process.emitWarning,
 * which Node calls for it, is a no-op meanwhile (setting process.noDeprecation held it back too, but Node's
 * emitWarning, ~1.4 KB of source compiled on its first call, still ran: ~0.2M instructions of a short run).
 * Undefined where this Node has no such binding (or no process.binding): callers then take the public module.
 */
export function processBinding<T extends object>(name: string): Partial<T> | undefined {
  const proc = process as unknown as { binding?: (name: string) => object; emitWarning: () => void };
  if (typeof proc.binding !== 'function') return undefined;
  const own = Object.getOwnPropertyDescriptor(proc, 'emitWarning');
  try {
    proc.emitWarning = () => {};
    return proc.binding(name) as Partial<T>;
  } catch {
    return undefined;
  } finally {
    if (own) Object.defineProperty(proc, 'emitWarning', own);
    else delete (proc as { emitWarning?: unknown }).emitWarning;
  }
}
