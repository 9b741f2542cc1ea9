import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiKeyLength, encodeBase32, formatApiKey, parseApiKey } from './api-key.js';

/** The characters of an ASCII alphabet, for fc.constantFrom. */
const chars = (alphabet: string): string[] => Array.from(alphabet);

const keyShape = /^svc_[a-z2-7]{4}_[a-z2-7]{52}$/;
const prefixBytes = fc.uint8Array({ minLength: 3, maxLength: 3 });
const secretBytes = fc.uint8Array({ minLength: 32, maxLength: 32 });
const validKey = fc.tuple(prefixBytes, secretBytes).map(([p, s]) => formatApiKey(p, s));

/** RFC 4648 base32 decoding (lowercase, no padding), written independently of the encoder under test. */
function decodeBase32(text: string): Uint8Array {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = '';
  for (const c of text) {
    const index = alphabet.indexOf(c);
    if (index < 0) throw new Error(`not base32: ${c}`);
    bits += index.toString(2).padStart(5, '0');
  }
  const out: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) out.push(parseInt(bits.slice(i, i + 8), 2));
  return Uint8Array.from(out);
}

describe('encodeBase32', () => {
  it.each([
    ['', ''],
    ['f', 'my'],
    ['fo', 'mzxq'],
    ['foo', 'mzxw6'],
    ['foob', 'mzxw6yq'],
    ['fooba', 'mzxw6ytb'],
    ['foobar', 'mzxw6ytboi'],
  ])('encodes the RFC 4648 test vector %j as %j (lowercase, no padding)', (input, expected) => {
    expect(encodeBase32(new TextEncoder().encode(input))).toBe(expected);
  });

  it('is reversible and has ceil(8n/5) characters for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const text = encodeBase32(bytes);
        expect(text).toMatch(/^[a-z2-7]*$/);
        expect(text).toHaveLength(Math.ceil((bytes.length * 8) / 5));
        expect(decodeBase32(text)).toEqual(bytes);
      }),
      { numRuns: 300 },
    );
  });
});

describe('formatApiKey and parseApiKey', () => {
  it('formats any 3 + 32 random bytes as a key that parses back into its parts', () => {
    fc.assert(
      fc.property(prefixBytes, secretBytes, (p, s) => {
        const key = formatApiKey(p, s);
        expect(key).toMatch(keyShape);
        expect(key).toHaveLength(apiKeyLength);
        const parsed = parseApiKey(key);
        expect(parsed).toEqual({ prefix: key.slice(4, 8), secret: key.slice(9) });
        expect(parsed?.prefix).toBe(encodeBase32(p).slice(0, 4));
        expect(decodeBase32(parsed?.secret ?? '')).toEqual(s);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a secret that is not 32 bytes and a prefix shorter than 3 bytes', () => {
    expect(() => formatApiKey(new Uint8Array(3), new Uint8Array(31))).toThrow(RangeError);
    expect(() => formatApiKey(new Uint8Array(3), new Uint8Array(33))).toThrow(RangeError);
    expect(() => formatApiKey(new Uint8Array(2), new Uint8Array(32))).toThrow(RangeError);
    expect(() => formatApiKey(new Uint8Array(0), new Uint8Array(32))).toThrow(RangeError);
  });

  it('never throws on arbitrary text and returns null unless the text has the key shape', () => {
    const anyText = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'binary', minLength: apiKeyLength, maxLength: apiKeyLength }),
      fc.string({ unit: fc.constantFrom(...chars('svc_abz27089AZ= \n')), maxLength: 70 }),
    );
    fc.assert(
      fc.property(anyText, (text) => {
        const parsed = parseApiKey(text);
        if (keyShape.test(text)) expect(parsed).toEqual({ prefix: text.slice(4, 8), secret: text.slice(9) });
        else expect(parsed).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  it('returns null for values that are not strings at all', () => {
    for (const value of [undefined, null, 42, {}, ['svc_'], Symbol('k')]) {
      expect((parseApiKey as (text: unknown) => unknown)(value)).toBeNull();
    }
  });

  const nearMisses: [string, (key: string) => string][] = [
    ['uppercase', (k) => k.toUpperCase()],
    [
      'one uppercase secret character',
      (k) =>
        `${k.slice(0, 20)}${/[a-z]/.test(k.charAt(20)) ? k.charAt(20).toUpperCase() : 'Q'}${k.slice(21)}`,
    ],
    ['uppercase marker', (k) => `SVC_${k.slice(4)}`],
    ['secret one character short', (k) => k.slice(0, -1)],
    ['secret one character long', (k) => `${k}a`],
    ['prefix one character short', (k) => `svc_${k.slice(5)}`],
    ['prefix one character long', (k) => `svc_a${k.slice(4)}`],
    ['base32 padding', (k) => `${k.slice(0, -1)}=`],
    ['trailing padding', (k) => `${k}====`],
    ['extra underscore', (k) => `${k.slice(0, 9)}_${k.slice(10)}`],
    ['doubled separator', (k) => `${k.slice(0, 8)}_${k.slice(8, -1)}`],
    ['missing separator', (k) => `${k.slice(0, 8)}${k.slice(9)}a`],
    ['leading space', (k) => ` ${k}`],
    ['trailing newline', (k) => `${k}\n`],
    ['trailing space', (k) => `${k.slice(0, -1)} `],
    ['other marker', (k) => `svk_${k.slice(4)}`],
    ['no marker', (k) => k.slice(4)],
  ];

  it.each(nearMisses)('returns null for a near miss: %s', (_label, mutate) => {
    fc.assert(
      fc.property(validKey, (key) => {
        expect(parseApiKey(key)).not.toBeNull();
        expect(parseApiKey(mutate(key))).toBeNull();
      }),
      { numRuns: 50 },
    );
  });

  it('returns null when any one character of a valid key becomes 0, 1, 8 or 9 (not base32)', () => {
    const position = fc.integer({ min: 0, max: apiKeyLength - 1 });
    fc.assert(
      fc.property(validKey, position, fc.constantFrom('0', '1', '8', '9'), (key, at, digit) => {
        const changed = `${key.slice(0, at)}${digit}${key.slice(at + 1)}`;
        expect(changed).toHaveLength(apiKeyLength);
        expect(parseApiKey(changed)).toBeNull();
      }),
      { numRuns: 500 },
    );
  });
});
