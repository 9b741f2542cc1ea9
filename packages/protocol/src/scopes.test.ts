import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isGrantableScope, scopeCovers, scopeFamilies, scopes, scopesCover, type Scope } from './scopes.js';

/** The characters of an ASCII alphabet, for fc.constantFrom. */
const chars = (alphabet: string): string[] => Array.from(alphabet);

const familyOf = (scope: string) => scope.split(':')[0];

describe('scopeCovers', () => {
  it.each<[string, Scope, boolean]>([
    ['assets:read', 'assets:read', true],
    ['assets:*', 'assets:read', true],
    ['assets:*', 'assets:exec', true],
    ['assets', 'assets:power', true],
    ['*', 'bulk:write', true],
    ['*', 'events:subscribe', true],
    ['bulk:*', 'bulk:write', true],
    ['bulk', 'bulk:write', true],
    ['assets:read', 'assets:write', false],
    ['assets:write', 'assets:read', false],
    ['files:*', 'assets:read', false],
    ['files', 'assets:read', false],
    ['file', 'files:read', false],
    ['file:*', 'files:read', false],
    ['files:read', 'files:write', false],
    ['asset', 'assets:read', false],
    ['assets:', 'assets:read', false],
    [':read', 'assets:read', false],
    ['', 'assets:read', false],
    ['**', 'assets:read', false],
    ['ASSETS:READ', 'assets:read', false],
    ['Assets', 'assets:read', false],
    [' assets:read', 'assets:read', false],
    ['assets:read ', 'assets:read', false],
    ['assets:read:x', 'assets:read', false],
    ['actions:*', 'assets:exec', false],
    ['container:*', 'connectors:read', false],
  ])('held %j covers %j: %s', (held, required, expected) => {
    expect(scopeCovers(held, required)).toBe(expected);
  });
});

describe('scopesCover', () => {
  it('is true when any held scope covers the required one, false for an empty list', () => {
    expect(scopesCover([], 'assets:read')).toBe(false);
    expect(scopesCover(['files:read', 'assets:read'], 'assets:read')).toBe(true);
    expect(scopesCover(['files:*', 'groups'], 'groups:write')).toBe(true);
    expect(scopesCover(['files:*', 'groups:read', 'asset'], 'assets:read')).toBe(false);
    expect(scopesCover(['files:*', '*'], 'audit:read')).toBe(true);
  });

  it('agrees with scopeCovers on every element for random held lists', () => {
    const held = fc.array(fc.constantFrom<string>('*', ...scopes, ...scopeFamilies, 'nope', 'files:*'), {
      maxLength: 6,
    });
    fc.assert(
      fc.property(held, fc.constantFrom(...scopes), (list, required) => {
        expect(scopesCover(list, required)).toBe(list.some((h) => scopeCovers(h, required)));
      }),
      { numRuns: 300 },
    );
  });
});

describe('isGrantableScope', () => {
  it('accepts every scope of the inventory, every family:*, every bare family and *', () => {
    const accepted = ['*', ...scopes, ...scopeFamilies, ...scopeFamilies.map((f) => `${f}:*`)];
    expect(accepted.length).toBeGreaterThan(scopes.length);
    for (const scope of accepted) expect(isGrantableScope(scope), scope).toBe(true);
  });

  it('knows every family that appears in the inventory, and no other', () => {
    expect(new Set(scopeFamilies)).toEqual(new Set(scopes.map(familyOf)));
    expect(scopeFamilies).toContain('assets');
    expect(scopeFamilies).toContain('bulk');
  });

  it.each([
    '',
    '**',
    '*:*',
    '*:read',
    'assets:',
    ':read',
    ':',
    'assets:fly',
    'assets:**',
    'nope',
    'nope:*',
    'nope:read',
    'asset',
    'asset:read',
    'files:exec',
    'bulk:read',
    'ASSETS:READ',
    'Assets:read',
    'assets:Read',
    ' assets:read',
    'assets:read ',
    'assets: read',
    'assets :read',
    '\tassets',
    'assets\n',
    'assets:read:write',
    'assets:read,files:read',
    'assets::read',
    'assets:*:read',
    'assets-read',
    'assets.read',
    '__proto__',
    'constructor',
    'toString',
  ])('refuses %j', (value) => {
    expect(isGrantableScope(value)).toBe(false);
  });

  const scopeLike = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.string({ unit: fc.constantFrom(...chars('abcdefghijklmnopqrstuvwxyz:*_ A')), maxLength: 20 }),
    fc
      .tuple(fc.constantFrom(...scopeFamilies, 'nope', ''), fc.string({ maxLength: 10 }))
      .map(([f, a]) => `${f}:${a}`),
  );

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(scopeLike, (value) => {
        expect(typeof isGrantableScope(value)).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });

  it('grants only the four shapes: exact inventory scope, family:*, bare family, *', () => {
    const families = new Set(scopeFamilies);
    const known = new Set<string>(scopes);
    fc.assert(
      fc.property(scopeLike, (value) => {
        const [family = '', action, ...rest] = value.split(':');
        const expected =
          value === '*' ||
          (families.has(family) &&
            rest.length === 0 &&
            (action === undefined || action === '*' || known.has(value)));
        expect(isGrantableScope(value)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('a grantable scope other than * covers only scopes of its own family', () => {
    const grantable = fc.oneof(
      fc.constantFrom(...scopes),
      fc.constantFrom(...scopeFamilies),
      fc.constantFrom(...scopeFamilies.map((f) => `${f}:*`)),
    );
    fc.assert(
      fc.property(grantable, (held) => {
        fc.pre(held !== '*');
        expect(isGrantableScope(held)).toBe(true);
        const covered = scopes.filter((s) => scopeCovers(held, s));
        expect(covered.length).toBeGreaterThan(0);
        for (const s of covered) expect(familyOf(s)).toBe(familyOf(held));
      }),
      { numRuns: 500 },
    );
  });

  it('* covers every scope, and a family wildcard covers exactly its family', () => {
    expect(scopes.every((s) => scopeCovers('*', s))).toBe(true);
    for (const family of scopeFamilies) {
      const expected = scopes.filter((s) => familyOf(s) === family);
      expect(scopes.filter((s) => scopeCovers(`${family}:*`, s))).toEqual(expected);
      expect(scopes.filter((s) => scopeCovers(family, s))).toEqual(expected);
    }
  });
});
