/** Prefixed, time-sortable identifiers (ARCHITECTURE.md section 3). */
export const idPrefixes = {
  asset: 'ast',
  apiKey: 'key',
  group: 'grp',
  webhook: 'whk',
  schedule: 'sch',
  scheduleRun: 'run',
  serviceCheck: 'chk',
  checkResult: 'chr',
  action: 'act',
  alert: 'alr',
  alertRule: 'arl',
  incident: 'inc',
  user: 'usr',
  event: 'evt',
  request: 'req',
  session: 'ses',
  enrollmentToken: 'enr',
  webhookDelivery: 'dlv',
  notificationChannel: 'nch',
  discoverySuggestion: 'dsg',
  connector: 'con',
  dependencyLink: 'dln',
  desktopSession: 'dsk',
  desktopRecording: 'drc',
  remoteSession: 'rss',
  recording: 'rec',
  pushSubscription: 'psb',
  webauthnCredential: 'wac',
  telemetryEvent: 'tel',
  maintenanceWindow: 'mnt',
  updateRun: 'upr',
  snippet: 'snp',
  bookmark: 'bmk',
  assetFilter: 'flt',
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

/** Random bytes drawn from the system a pool at a time: one call per 256 ids rather than one per id. */
const randomPool = new Uint8Array(4096);
let randomAt = randomPool.length;

function randomChars(count: number): string {
  if (randomAt + count > randomPool.length) {
    globalThis.crypto.getRandomValues(randomPool);
    randomAt = 0;
  }
  let out = '';
  for (let i = 0; i < count; i++) out += crockford.charAt((randomPool[randomAt + i] ?? 0) % 32);
  // Each byte is used once.
  randomAt += count;
  return out;
}

let lastTime = 0;
let lastRandom = '';
/** encodeTime(lastTime): ids of one millisecond share it. */
let lastTimeText = '';

/**
 * A new id such as `ast_01jd7k2m3n4p5q6r7s8t9v0wxy`: 10 time characters then 16 random ones. Ids made by one
 * process sort in creation order: in the same millisecond (or if the clock steps back) the previous id's time
 * is kept and its random tail incremented, as ULID's monotonic mode does; a tail that cannot be incremented
 * carries into the time.
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  let time: number;
  let tail: string;
  if (now <= lastTime && lastRandom) {
    time = lastTime;
    const next = increment(lastRandom);
    if (next === null) {
      time = lastTime + 1;
      tail = '0'.repeat(lastRandom.length);
    } else {
      tail = next;
    }
  } else {
    time = now;
    tail = randomChars(16);
  }
  if (time !== lastTime || lastTimeText === '') lastTimeText = encodeTime(time);
  lastTime = time;
  lastRandom = tail;
  return `${idPrefixes[kind]}_${lastTimeText}${tail}`;
}

/** The next value in Crockford base32, or null when every character is already the last one. */
function increment(value: string): string | null {
  // Most steps change the last character only.
  const lastIndex = crockford.indexOf(value.charAt(value.length - 1));
  if (lastIndex >= 0 && lastIndex < 31) return value.slice(0, -1) + crockford.charAt(lastIndex + 1);
  const chars = value.split('');
  for (let i = chars.length - 1; i >= 0; i--) {
    const index = crockford.indexOf(chars[i] ?? '0');
    if (index < 31) {
      chars[i] = crockford.charAt(index + 1);
      return chars.join('');
    }
    chars[i] = '0';
  }
  return null;
}

const idPattern = /^[a-z]{3}_[0-9a-hjkmnp-tv-z]{26}$/;

const knownPrefixes: readonly string[] = Object.values(idPrefixes);

/** Whether the text is an id of this kind, or without a kind, of any known kind. */
export function isId(value: string, kind?: IdKind): boolean {
  if (typeof value !== 'string' || !idPattern.test(value)) return false;
  const prefix = value.slice(0, 3);
  return kind === undefined ? knownPrefixes.includes(prefix) : prefix === idPrefixes[kind];
}

/** JSON-schema pattern for an id of one kind, used by route contracts. */
export function idPatternFor(kind: IdKind): string {
  return `^${idPrefixes[kind]}_[0-9a-hjkmnp-tv-z]{26}$`;
}
