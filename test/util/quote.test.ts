import { describe, expect, it } from 'vitest';
import { QUOTE_MAX, escapeControl, quote, quoteValue } from '../../src/util/quote.js';
import { describeStart, notExpectedKind, sniffFile } from '../../src/util/sniff.js';

describe('quote', () => {
  it('writes a short name as a JSON string literal would', () => {
    expect(quote('Game/Content/Hero.uasset')).toBe('"Game/Content/Hero.uasset"');
    expect(quote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(quote('a\nb\tc\r\u0000\u001b[2J')).toBe('"a\\nb\\tc\\r\\u0000\\u001b[2J"');
    for (const s of ['x\ny', 'tab\there', 'q"uote', 'back\\slash', '\u0001\u001f']) expect(JSON.parse(quote(s))).toBe(s);
  });

  it('escapes C1 controls, DEL, line separators, bidi overrides and lone surrogates; keeps other Unicode', () => {
    expect(quote('\u009b31m\u007f\u2028\u2029\u202e\u2066')).toBe('"\\u009b31m\\u007f\\u2028\\u2029\\u202e\\u2066"');
    expect(quote('\ud800x\udc00')).toBe('"\\ud800x\\udc00"');
    expect(quote('Ünïcödé 名前 😀')).toBe('"Ünïcödé 名前 😀"');
  });

  it('cuts a long quote to 80 characters, an ellipsis and the full length', () => {
    const long = 'A'.repeat(5000);
    expect(quote(long)).toBe(`"${'A'.repeat(QUOTE_MAX)}…" (5000 characters)`);
    expect(quote('B'.repeat(80))).toBe(`"${'B'.repeat(80)}"`);
    // Never splits a surrogate pair; the worst case (all controls) stays bounded.
    expect(quote(`${'x'.repeat(79)}😀${'y'.repeat(100)}`)).toBe(`"${'x'.repeat(79)}…" (181 characters)`);
    expect(quote('\u0001'.repeat(100000)).length).toBeLessThan(QUOTE_MAX * 6 + 40);
  });

  it('escapeControl leaves backslashes and quotes alone (for text outside quotes)', () => {
    expect(escapeControl('C:\\Games\\"x"\nnext')).toBe('C:\\Games\\"x"\\nnext');
    expect(escapeControl('plain')).toBe('plain');
  });

  it('quoteValue shows any JSON value, bounded', () => {
    expect(quoteValue('s\n')).toBe('"s\\n"');
    expect(quoteValue(12)).toBe('12');
    expect(quoteValue(10n)).toBe('"10"');
    expect(quoteValue(undefined)).toBe('undefined');
    expect(quoteValue(new Array(1000).fill(7))).toMatch(/^\[7,7,.*… \(2001 characters\)$/);
  });
});

describe('sniffFile', () => {
  const bytes = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
  it('names the kinds it knows by their magic numbers', () => {
    expect(sniffFile(bytes('-==--==--==--==-\u0008'))?.kind).toBe('utoc');
    expect(sniffFile(Uint8Array.of(0x6e, 0x43, 0x6f, 0x49, 1, 0, 0, 0))?.kind).toBe('container-header');
    expect(sniffFile(Uint8Array.of(0xc1, 0x83, 0x2a, 0x9e, 0xf8, 0xff, 0xff, 0xff))?.kind).toBe('legacy-package');
    expect(sniffFile(Uint8Array.of(0xc1, 0x83, 0x2a, 0x9e, 69, 0, 0, 0))?.kind).toBe('classic-package');
    const pak = new Uint8Array(300);
    pak.set([0xe1, 0x12, 0x6f, 0x5a], 300 - 44);
    expect(sniffFile(pak)?.kind).toBe('pak');
    expect(sniffFile(bytes('hello world'))).toBeUndefined();
  });

  it('describes unknown bytes by their start, in one escaped line', () => {
    expect(describeStart(bytes('# Read me\n'))).toBe('starts with 0x232052656164206d "# Read m"');
    expect(describeStart(Uint8Array.of(0x1b, 0x5b, 0x32, 0x4a))).toBe('starts with 0x1b5b324a ".[2J" (4 bytes in all)');
    expect(describeStart(new Uint8Array(0))).toBe('the file is empty');
    expect(notExpectedKind(bytes('hello world'), ['a zen package', 'a container header'])).toBe('not a zen package or a container header (starts with 0x68656c6c6f20776f "hello wo")');
    expect(notExpectedKind(Uint8Array.of(0xc1, 0x83, 0x2a, 0x9e, 0xf8, 0xff, 0xff, 0xff), ['a zen package'])).toMatch(/^this is a legacy package .*, not a zen package$/);
  });
});
