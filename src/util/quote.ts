/**
 * Quoting text that comes from a file (names, paths, mount points) inside messages. Such text may hold newlines,
 * terminal escape sequences or megabytes of garbage; a message must stay one readable line whatever the file holds.
 */

/** Longest quote kept whole; longer ones keep this many characters, an ellipsis and their full length. */
export const QUOTE_MAX = 80;

// C0 and C1 controls, DEL, the Unicode line/paragraph separators, bidirectional overrides and isolates (they
// reorder what a terminal shows) and lone surrogates (not text).
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const SHORT: Record<string, string> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const escapeChar = (c: string): string => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Replaces control and other invisible-but-active characters with JSON-style escapes (`\n`, `\u001b`), leaving
 * everything else, backslashes included, as it is. For text that is not inside quotes (a file name, a message).
 */
export function escapeControl(s: string): string {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(s) ? s.replace(UNSAFE, escapeChar) : s;
}

/**
 * `s` in double quotes as a JSON string literal would write it (control characters, `"` and `\` escaped), cut to
 * `max` characters with `…` and the full length when longer: `"AAAA…" (5000 characters)`.
 */
export function quote(s: string, max = QUOTE_MAX): string {
  let head = s;
  if (s.length > max) {
    let n = max;
    // Do not split a surrogate pair.
    const c = s.charCodeAt(n - 1);
    if (c >= 0xd800 && c <= 0xdbff) n--;
    head = s.slice(0, n);
  }
  const body = escapeControl(head.replace(/[\\"]/g, (c) => `\\${c}`));
  return head === s ? `"${body}"` : `"${body}…" (${s.length} characters)`;
}

/** Any value as it would appear in JSON, quoted and cut like `quote` (strings) or cut to `max` characters. */
export function quoteValue(v: unknown, max = QUOTE_MAX): string {
  if (typeof v === 'string') return quote(v, max);
  let text: string;
  try {
    text = JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? String(v);
  } catch {
    text = String(v);
  }
  return text.length > max ? `${escapeControl(text.slice(0, max))}… (${text.length} characters)` : escapeControl(text);
}
