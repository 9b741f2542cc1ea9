import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcrypt';
import { encodeBase32 } from '@svc/protocol';

/** One-shot `hash` (strings as UTF-8): an API key is hashed on every request, and a Hash object costs more. */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/** Compares two strings in constant time by comparing their SHA-256 digests (equal lengths by construction). */
export function constantTimeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

/** Random text from `bytes` random bytes, lowercase base32. */
export function randomToken(bytes: number): string {
  return encodeBase32(randomBytes(bytes));
}

export function hashPassword(password: string, cost: number): Promise<string> {
  return bcrypt.hash(password, cost);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}
