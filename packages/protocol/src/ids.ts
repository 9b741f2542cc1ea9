/** Prefixed, time-sortable identifiers (ARCHITECTURE.md section 3). */
export const idPrefixes = {
  asset: 'ast',
  apiKey: 'key',
  group: 'grp',
  webhook: 'whk',
  schedule: 'sch',
  action: 'act',
  alert: 'alr',
  incident: 'inc',
  user: 'usr',
  event: 'evt',
  request: 'req',
  session: 'ses',
  enrollmentToken: 'enr',
} as const;

export type IdKind = keyof typeof idPrefixes;
export type IdPrefix = (typeof idPrefixes)[IdKind];

const crockford = '0123456789abcdefghjkmnpqrstvwxyz';

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = crockford.charAt(rest % 32) + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function randomChars(count: number): string {
  const bytes = new Uint8Array(count);
  globalThis.crypto.getRandomValues(bytes);
  let out = '';
  for (const b of bytes) out += crockford.charAt(b % 32);
  return out;
}

let lastTime = 0;
let lastRandom = '';

/** A new id such as `ast_01jd7k2m3n4p5q6r7s8t9v0wxy`: 10 time characters then 16 random ones. */
export function newId(kind: IdKind, now: number = Date.now()): string {
  // Ids made in the same millisecond still sort in creation order: bump the random tail.
  let tail: string;
  if (now === lastTime && lastRandom) {
    tail = increment(lastRandom);
  } else {
    tail = randomChars(16);
  }
  lastTime = now;
  lastRandom = tail;
  return `${idPrefixes[kind]}_${encodeTime(now)}${tail}`;
}

function increment(value: string): string {
  const chars = value.split('');
  for (let i = chars.length - 1; i >= 0; i--) {
    const index = crockford.indexOf(chars[i] ?? '0');
    if (index < 31) {
      chars[i] = crockford.charAt(index + 1);
      return chars.join('');
    }
    chars[i] = '0';
  }
  return randomChars(value.length);
}

const idPattern = /^[a-z]{3}_[0-9a-hjkmnp-tv-z]{26}$/;

export function isId(value: string, kind?: IdKind): boolean {
  if (!idPattern.test(value)) return false;
  return kind === undefined || value.startsWith(`${idPrefixes[kind]}_`);
}

/** JSON-schema pattern for an id of one kind, used by route contracts. */
export function idPatternFor(kind: IdKind): string {
  return `^${idPrefixes[kind]}_[0-9a-hjkmnp-tv-z]{26}$`;
}
