import { plural } from '../util/plural.js';

export { plural };

/** `2 containers and 3 paks` of a list of names (a pak's ends with `.pak`), each counted apart. */
export function sources(names: readonly string[]): string {
  const paks = names.filter((n) => /\.pak$/i.test(n)).length;
  const containers = names.length - paks;
  return [containers > 0 || paks === 0 ? plural(containers, 'container') : '', paks > 0 ? plural(paks, 'pak') : ''].filter(Boolean).join(' and ');
}
