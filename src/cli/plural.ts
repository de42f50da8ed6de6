import { plural } from '../util/plural.js';
import { hasExtension } from '../util/file-extension.js';

export { plural };

/** `2 containers and 3 paks` of a list of names (a pak's ends with `.pak`), each counted apart. */
export function sources(names: readonly string[]): string {
  const paks = names.filter((n) => hasExtension(n, '.pak')).length;
  const containers = names.length - paks;
  return [containers > 0 || paks === 0 ? plural(containers, 'container') : '', paks > 0 ? plural(paks, 'pak') : ''].filter(Boolean).join(' and ');
}
