/**
 * API key text: `svc_<prefix>_<secret>`. The prefix is 4 lowercase RFC 4648 base32 characters; the secret is
 * 32 random bytes in lowercase RFC 4648 base32 without padding (52 characters).
 */
export const apiKeyMarker = 'svc_';
export const apiKeyPrefixLength = 4;
export const apiKeySecretLength = 52;
export const apiKeyLength = apiKeyMarker.length + apiKeyPrefixLength + 1 + apiKeySecretLength;

const apiKeyPattern = /^svc_([a-z2-7]{4})_([a-z2-7]{52})$/;
const base32Alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

export interface ParsedApiKey {
  prefix: string;
  secret: string;
}

/** Parses key text; returns null for anything that is not exactly a key. Never throws. */
export function parseApiKey(text: string): ParsedApiKey | null {
  if (typeof text !== 'string' || text.length !== apiKeyLength) return null;
  const match = apiKeyPattern.exec(text);
  if (!match) return null;
  return { prefix: match[1] as string, secret: match[2] as string };
}

export function encodeBase32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += base32Alphabet.charAt((value >>> (bits - 5)) & 31);
      bits -= 5;
    }
  }
  if (bits > 0) out += base32Alphabet.charAt((value << (5 - bits)) & 31);
  return out;
}

/** Builds key text from random bytes: 3 bytes for the prefix (4 chars used), 32 for the secret. */
export function formatApiKey(prefixBytes: Uint8Array, secretBytes: Uint8Array): string {
  if (secretBytes.length !== 32) throw new RangeError('an API key secret is 32 bytes');
  // 2 bytes would also give 4 characters, but the last one would carry a single random bit.
  if (prefixBytes.length < 3) throw new RangeError('prefix needs at least 3 bytes');
  const prefix = encodeBase32(prefixBytes).slice(0, apiKeyPrefixLength);
  return `${apiKeyMarker}${prefix}_${encodeBase32(secretBytes)}`;
}
