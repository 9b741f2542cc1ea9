import fc from 'fast-check';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import {
  displayNamePattern,
  displayTextPattern,
  isDisplayName,
  sanitizeDisplayText,
} from './display-text.js';
import { AssetCreate, AssetUpdate } from './api/assets.js';
import { EnrollmentTokenCreate } from './api/enrollment.js';
import { GroupCreate, GroupUpdate } from './api/groups.js';
import { ApiKeyCreate, ApiKeyUpdate } from './api/keys.js';
import { UserCreate } from './api/users.js';

/** Every code point a name may not hold: C0, DEL and C1, bidi marks and controls, line/paragraph separators. */
const unsafeCodePoints = [
  ...Array.from({ length: 0x20 }, (_, i) => i),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
  0x061c,
  0x200e,
  0x200f,
  0x2028,
  0x2029,
  0x202a,
  0x202b,
  0x202c,
  0x202d,
  0x202e,
  0x2066,
  0x2067,
  0x2068,
  0x2069,
];
const unsafe = unsafeCodePoints.map((c) => String.fromCodePoint(c));
const inDescriptions = new Set(['\t', '\n']);

/** Names people really give: accents, scripts written right to left, emoji joined by ZWJ, CJK. */
const fineNames = [
  'web-01',
  'Zürich rack 3',
  'İstanbul',
  'خادم',
  'サーバー',
  '👩‍💻 desk',
  'a b',
  'x'.repeat(120),
];

const nameFields: [string, TSchema][] = [
  ['ApiKeyCreate.name', ApiKeyCreate.properties.name],
  ['ApiKeyUpdate.name', ApiKeyUpdate.properties.name],
  ['AssetCreate.name', AssetCreate.properties.name],
  ['AssetUpdate.name', AssetUpdate.properties.name],
  ['GroupCreate.name', GroupCreate.properties.name],
  ['GroupUpdate.name', GroupUpdate.properties.name],
  ['EnrollmentTokenCreate.name', EnrollmentTokenCreate.properties.name],
  ['UserCreate.username', UserCreate.properties.username],
];
const descriptionFields: [string, TSchema][] = [
  ['AssetCreate.description', AssetCreate.properties.description],
  ['AssetUpdate.description', AssetUpdate.properties.description],
  ['GroupCreate.description', GroupCreate.properties.description],
  ['GroupUpdate.description', GroupUpdate.properties.description],
];

const safeChar = fc
  .string({ unit: 'binary', minLength: 1, maxLength: 1 })
  .filter((s) => !unsafe.some((u) => s.includes(u)));

describe('display names', () => {
  it.each(nameFields)('%s refuses every control, escape and bidi character', (_field, schema) => {
    for (const ch of unsafe) {
      expect([ch.codePointAt(0), Value.Check(schema, `web${ch}01`)]).toEqual([ch.codePointAt(0), false]);
    }
    expect(Value.Check(schema, 'web\u001b[2J01')).toBe(false);
  });

  it.each(descriptionFields)('%s refuses them too, but keeps tabs and line feeds', (_field, schema) => {
    for (const ch of unsafe) {
      const expected = inDescriptions.has(ch);
      expect([ch.codePointAt(0), Value.Check(schema, `one${ch}two`)]).toEqual([ch.codePointAt(0), expected]);
    }
  });

  it('accepts the names people give, in any script', () => {
    for (const [field, schema] of nameFields.filter(([f]) => !f.endsWith('username'))) {
      for (const name of fineNames)
        expect([field, name, Value.Check(schema, name)]).toEqual([field, name, true]);
    }
  });

  it('holds for any text: a name passes exactly when it has no unsafe character', () => {
    const anyText = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.array(fc.oneof(safeChar, fc.constantFrom(...unsafe)), { maxLength: 20 }).map((p) => p.join('')),
    );
    fc.assert(
      fc.property(anyText, (text) => {
        const hasUnsafe = unsafe.some((ch) => text.includes(ch));
        expect(isDisplayName(text)).toBe(!hasUnsafe);
        expect(new RegExp(displayNamePattern).test(text)).toBe(!hasUnsafe);
      }),
      { numRuns: 500 },
    );
  });

  it('never lets an unsafe character through sanitizing, and leaves safe text as it was', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        const clean = sanitizeDisplayText(text);
        expect(isDisplayName(clean)).toBe(true);
        expect(new RegExp(displayTextPattern, 'u').test(clean)).toBe(true);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.array(safeChar, { maxLength: 30 }), (parts) => {
        const text = parts.join('').trim();
        expect(sanitizeDisplayText(text)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['a colour code', 'web\u001b[31m01\u001b[0m', 'web01'],
    ['a screen clear', '\u001b[2J\u001b[Hweb01', 'web01'],
    ['a C1 CSI', 'web\u009b31m01', 'web01'],
    ['a title set by OSC', 'web\u001b]0;owned\u000701', 'web01'],
    ['a right-to-left override', 'invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['isolates and marks', '\u2066web\u2069\u200e01\u061c', 'web01'],
    ['a line break', 'web\n01\r', 'web01'],
    ['a line separator', 'web\u202801', 'web01'],
    ['nothing but controls', '\u0000\u0007\u001b', ''],
    ['a plain name', '  db-1.lan ', 'db-1.lan'],
  ])('strips %s from text an agent reports', (_what, text, clean) => {
    expect(sanitizeDisplayText(text)).toBe(clean);
  });
});
