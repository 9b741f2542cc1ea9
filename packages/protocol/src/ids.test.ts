import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IdKind } from './ids.js';

/** ids.ts keeps the last time and tail in module state: each test gets a fresh copy of the module. */
async function freshIds() {
  vi.resetModules();
  return import('./ids.js');
}

const crockford = '0123456789abcdefghjkmnpqrstvwxyz';

/** The millisecond time an id carries, decoded independently of the encoder. */
function timeOf(id: string): number {
  let ms = 0;
  for (const c of id.slice(4, 14)) ms = ms * 32 + crockford.indexOf(c);
  return ms;
}

function isSortedInCreationOrder(ids: readonly string[]): boolean {
  const sorted = [...ids].sort();
  return sorted.every((id, i) => id === ids[i]);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('newId format', () => {
  it('makes ids of every kind that isId accepts for that kind only, and that idPatternFor matches', async () => {
    const { idPrefixes, idPatternFor, isId, newId } = await freshIds();
    const kinds = Object.keys(idPrefixes) as IdKind[];
    expect(kinds.length).toBeGreaterThanOrEqual(10);
    for (const kind of kinds) {
      const id = newId(kind);
      expect(id).toMatch(/^[a-z]{3}_[0-9a-hjkmnp-tv-z]{26}$/);
      expect(id.startsWith(`${idPrefixes[kind]}_`)).toBe(true);
      expect(isId(id)).toBe(true);
      expect(isId(id, kind)).toBe(true);
      expect(new RegExp(idPatternFor(kind)).test(id)).toBe(true);
      for (const other of kinds.filter((k) => k !== kind)) {
        expect(isId(id, other), `${id} as ${other}`).toBe(false);
        expect(new RegExp(idPatternFor(other)).test(id)).toBe(false);
      }
    }
  });

  it('uses the documented prefixes, all distinct', async () => {
    const { idPrefixes } = await freshIds();
    expect(idPrefixes).toMatchObject({
      asset: 'ast',
      apiKey: 'key',
      group: 'grp',
      webhook: 'whk',
      schedule: 'sch',
      action: 'act',
      alert: 'alr',
      alertRule: 'arl',
      incident: 'inc',
      user: 'usr',
      event: 'evt',
      request: 'req',
    });
    const values = Object.values(idPrefixes);
    expect(new Set(values).size).toBe(values.length);
  });

  it('encodes the given time in its first ten characters', async () => {
    const { newId } = await freshIds();
    // Increasing times: each call is later than the previous one, so the id carries exactly `now`.
    let now = Date.UTC(2026, 10, 23);
    for (let i = 0; i < 200; i++) {
      now += 1 + Math.floor(Math.random() * 1e9);
      expect(timeOf(newId('event', now))).toBe(now);
    }
  });

  it('refuses text that is not an id: wrong prefix, length, alphabet, case, separators', async () => {
    const { isId, newId, idPatternFor } = await freshIds();
    const id = newId('asset');
    const body = id.slice(4);
    const bad = [
      '',
      'ast_',
      `ast_${body.slice(1)}`,
      `ast_${body}0`,
      `AST_${body}`,
      `ast_${body.toUpperCase()}`,
      `ast-${body}`,
      `ast__${body.slice(1)}`,
      `ast_${body.slice(1)}i`,
      `ast_${body.slice(1)}l`,
      `ast_${body.slice(1)}o`,
      `ast_${body.slice(1)}u`,
      ` ${id}`,
      `${id}\n`,
      `zzz_${body}`,
      `as_${body}0`,
    ];
    for (const text of bad) {
      expect(isId(text), JSON.stringify(text)).toBe(false);
      expect(isId(text, 'asset'), JSON.stringify(text)).toBe(false);
      expect(new RegExp(idPatternFor('asset')).test(text), JSON.stringify(text)).toBe(false);
    }
  });

  it('never throws on arbitrary text', async () => {
    const { isId } = await freshIds();
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.constantFrom<IdKind | undefined>(undefined, 'asset', 'user'),
        (text, kind) => {
          expect(typeof isId(text, kind)).toBe('boolean');
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('newId ordering', () => {
  it('draws fresh random tails across many refills of its random bytes, each id in its own millisecond', async () => {
    const { newId, isId } = await freshIds();
    const start = Date.UTC(2026, 10, 30, 12);
    // 16 random characters per id and 4 KiB drawn at a time: 2,000 ids use the drawn bytes up several times over.
    const ids = Array.from({ length: 2_000 }, (_, i) => newId('request', start + i));
    const tails = ids.map((id) => id.slice(14));
    expect(new Set(tails).size).toBe(ids.length);
    expect(ids.every((id, i) => isId(id, 'request') && timeOf(id) === start + i)).toBe(true);
    // Every character of the alphabet turns up in the tails, at roughly its share (32,000 characters).
    const counts = new Map<string, number>();
    for (const c of tails.join('')) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(32);
    expect(Math.min(...counts.values())).toBeGreaterThan(700);
  });

  it('makes 10,000 unique ids in one millisecond that sort in creation order', async () => {
    const { newId, isId } = await freshIds();
    const now = Date.UTC(2026, 10, 23, 12);
    const ids = Array.from({ length: 10_000 }, () => newId('event', now));
    expect(new Set(ids).size).toBe(ids.length);
    expect(isSortedInCreationOrder(ids)).toBe(true);
    expect(ids.every((id) => isId(id, 'event') && timeOf(id) === now)).toBe(true);
  });

  it('makes 10,000 ids in a tight loop on the real clock that are unique and sorted', async () => {
    const { newId } = await freshIds();
    const ids = Array.from({ length: 10_000 }, () => newId('request'));
    expect(new Set(ids).size).toBe(ids.length);
    expect(isSortedInCreationOrder(ids)).toBe(true);
  });

  it('keeps creation order across kinds and when time advances between bursts', async () => {
    const { newId } = await freshIds();
    const kinds: IdKind[] = ['asset', 'event', 'apiKey'];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(3), fc.integer({ min: 1, max: 50 })), { minLength: 1, maxLength: 40 }),
        (bursts) => {
          let now = Date.UTC(2030, 0, 1) + Math.floor(Math.random() * 1e9);
          const made: string[] = [];
          for (const [step, count] of bursts) {
            now += step;
            for (let i = 0; i < count; i++) made.push(newId(kinds[i % kinds.length] as IdKind, now).slice(4));
          }
          expect(new Set(made).size).toBe(made.length);
          expect(isSortedInCreationOrder(made)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('puts a later millisecond after an earlier one whatever the random tails', async () => {
    const { newId } = await freshIds();
    let base = Date.UTC(2026, 0, 1);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e9 }), (gap) => {
        base += 1;
        const a = newId('asset', base);
        base += gap;
        const b = newId('asset', base);
        expect(a < b).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('stays unique and ordered when the random tail is already at its maximum', async () => {
    const { newId, isId } = await freshIds();
    // Random bytes of 31 give the tail "zzzzzzzzzzzzzzzz": the next id in that millisecond cannot bump it.
    vi.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation((array) => {
      if (array instanceof Uint8Array) array.fill(31);
      return array;
    });
    const now = Date.UTC(2026, 10, 23, 12);
    const ids = Array.from({ length: 50 }, () => newId('event', now));
    expect(ids[0]?.endsWith('z'.repeat(16))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(isSortedInCreationOrder(ids)).toBe(true);
    expect(ids.every((id) => isId(id, 'event'))).toBe(true);
  });

  it('keeps creation order when the clock steps back', async () => {
    const { newId } = await freshIds();
    const now = Date.UTC(2026, 10, 23, 12);
    const ids = [now, now + 5, now + 5, now - 1000, now - 1000, now + 2, now + 6].map((t) =>
      newId('event', t),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(isSortedInCreationOrder(ids)).toBe(true);
    expect(timeOf(ids.at(-1) ?? '')).toBe(now + 6);
  });
});
