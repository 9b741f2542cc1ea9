/**
 * The keys the hub's TLS server encrypts its session tickets with (decision 0072), kept sealed in
 * `<data>/tls-private/ticket-keys.sealed` (0600) so that a restarted hub still resumes the sessions it issued
 * before: after a restart every agent reconnects at once, and a resumed handshake skips the certificate
 * exchange. New keys every day (at start, and by the running hub): a ticket older than the keys that encrypted
 * it is refused and that client does one full handshake. The keys are never served, logged or shared with
 * another process or product; a file that will not open is replaced (the cost: one full handshake per client).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { writePrivateFile, type TlsPaths } from './tls-files.js';
import type { SecretBox } from '../secret-box.js';

/** How long one set of keys encrypts new tickets, and how long a ticket may be resumed (sessionTimeout). */
export const ticketKeyLifetimeS = 24 * 60 * 60;
/** Node's ticket keys: 16 bytes of name, 16 of HMAC key, 16 of AES key. */
const ticketKeyBytes = 48;
const ticketKeysContext = 'tls:ticket-keys';

export interface TicketKeys {
  keys: Buffer;
  createdAt: Date;
}

interface StoredTicketKeys {
  created_at: string;
  keys: string;
}

function isStored(value: unknown): value is StoredTicketKeys {
  if (typeof value !== 'object' || value === null) return false;
  const { created_at: createdAt, keys } = value as Record<string, unknown>;
  return typeof createdAt === 'string' && typeof keys === 'string';
}

function read(box: SecretBox, file: string): TicketKeys | null {
  if (!fs.existsSync(file)) return null;
  try {
    const stored: unknown = JSON.parse(box.open(fs.readFileSync(file, 'utf8').trim(), ticketKeysContext));
    if (!isStored(stored)) return null;
    const keys = Buffer.from(stored.keys, 'base64');
    const createdAt = new Date(stored.created_at);
    if (keys.length !== ticketKeyBytes || Number.isNaN(createdAt.getTime())) return null;
    return { keys, createdAt };
  } catch {
    return null;
  }
}

function isDue(current: TicketKeys, now: Date): boolean {
  const ageMs = now.getTime() - current.createdAt.getTime();
  // A clock set back makes a negative age: new keys rather than keys that would never rotate.
  return ageMs < 0 || ageMs >= ticketKeyLifetimeS * 1000;
}

/**
 * The stored keys while they are less than a day old; otherwise (none, unreadable, too old) new ones, stored
 * before they are returned. `current`: the keys this process serves now, when it checks again later.
 */
export function loadOrRotateTicketKeys(
  box: SecretBox,
  paths: TlsPaths,
  now: Date,
  current: TicketKeys | null = null,
): { ticketKeys: TicketKeys; rotated: boolean } {
  const stored = current ?? read(box, paths.ticketKeys);
  if (stored && !isDue(stored, now)) return { ticketKeys: stored, rotated: false };
  const ticketKeys = { keys: randomBytes(ticketKeyBytes), createdAt: now };
  const text = JSON.stringify({ created_at: now.toISOString(), keys: ticketKeys.keys.toString('base64') });
  writePrivateFile(paths, paths.ticketKeys, `${box.seal(text, ticketKeysContext)}\n`);
  return { ticketKeys, rotated: true };
}
