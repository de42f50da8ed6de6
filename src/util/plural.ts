/** `1 package`, `2 packages`, `1 entry`, `3 entries`: a count with its noun in the right number. */
export function plural(count: number, noun: string, nouns = pluralOf(noun)): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

function pluralOf(noun: string): string {
  // The last word takes the number: `1 non-package file`, `2 non-package files`.
  // Without regular expressions (a short run would compile each on its first test): /[^aeiou]y$/, /(s|x|ch|sh)$/.
  if (noun.length >= 2 && noun.endsWith('y') && !'aeiou'.includes(noun[noun.length - 2]!)) return `${noun.slice(0, -1)}ies`;
  if (noun.endsWith('s') || noun.endsWith('x') || noun.endsWith('ch') || noun.endsWith('sh')) return `${noun}es`;
  return `${noun}s`;
}
