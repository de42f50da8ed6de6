/** `1 package`, `2 packages`, `1 entry`, `3 entries`: a count with its noun in the right number. */
export function plural(count: number, noun: string, nouns = pluralOf(noun)): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

function pluralOf(noun: string): string {
  // The last word takes the number: `1 non-package file`, `2 non-package files`.
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(noun)) return `${noun}es`;
  return `${noun}s`;
}
