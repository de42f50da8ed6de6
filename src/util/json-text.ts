/**
 * JSON for people and scripts, with a trailing newline: indented by two spaces, except that a record (an object of
 * plain values: strings, numbers, booleans, null) in an array is one line, as `lsblk --json` prints its devices. A
 * listing's rows are such records: one a line, a game's listing takes ~25 % fewer bytes than indented (less to
 * write, to pipe and to parse) and each row stays one line for grep. Bigints are written as strings.
 */
export function renderJson(value: unknown): string {
  return `${jsonText(value, '', '', false) ?? 'null'}\n`;
}

/** A value's text at `indent` (undefined where JSON.stringify leaves the value out: a function, a symbol, undefined). */
function jsonText(value: unknown, key: string, indent: string, inArray: boolean): string | undefined {
  let v = value;
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(k: string): unknown }).toJSON(key);
  if (v === null || typeof v !== 'object') return compactJson(v);
  const inner = `${indent}  `;
  if (Array.isArray(v)) return v.length === 0 ? '[]' : `[\n${inner}${arrayItems(v, inner)}\n${indent}]`;
  if (inArray && recordKind(v) !== NOT_RECORD) return compactJson(v);
  const items: string[] = [];
  for (const k of Object.keys(v)) {
    const text = jsonText((v as Record<string, unknown>)[k], k, inner, false);
    if (text !== undefined) items.push(`${JSON.stringify(k)}: ${text}`);
  }
  return items.length === 0 ? '{}' : `{\n${inner}${items.join(`,\n${inner}`)}\n${indent}}`;
}

const NOT_RECORD = 0;
/** A record whose text may be `{}` (no member JSON writes). */
const RECORD = 1;
/** A record with a member JSON writes: its text starts `{"`. */
const RECORD_WITH_MEMBER = 2;

function recordKind(v: object): number {
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return NOT_RECORD;
  let kind = RECORD;
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== null && typeof x === 'object') return NOT_RECORD;
    if (x === null || (typeof x !== 'undefined' && typeof x !== 'function' && typeof x !== 'symbol')) kind = RECORD_WITH_MEMBER;
  }
  return kind;
}

/** An array's elements, joined by `,\n<inner>`. */
function arrayItems(v: unknown[], inner: string): string {
  let records = true;
  for (let i = 0; i < v.length && records; i++) {
    const x = v[i];
    records = x !== null && typeof x === 'object' && !Array.isArray(x) && recordKind(x) === RECORD_WITH_MEMBER;
  }
  if (records) {
    // Every element a record that writes a member: one native JSON.stringify of the array, cut into lines where one
    // record ends and the next begins. `},{"` is only ever that place: in a string a `"` is written `\"`. (Each
    // record stringified on its own took twice as long for 150,000 rows.)
    const text = compactJson(v)!;
    return text.slice(1, -1).replaceAll('},{"', `},\n${inner}{"`);
  }
  const items: string[] = [];
  for (let i = 0; i < v.length; i++) items.push(jsonText(v[i], String(i), inner, true) ?? 'null');
  return items.join(`,\n${inner}`);
}

/** JSON.stringify without spaces; bigints as strings (a replacer only where one is met: it calls back per value). */
function compactJson(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
  }
}
