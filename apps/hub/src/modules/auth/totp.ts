/**
 * RFC 6238 TOTP (SHA-1, 6 digits, 30-second steps — what authenticator apps use), on otplib. A code is
 * accepted for the current step and one step either side (clock drift); the caller stores the step a code
 * matched so the same code, or an older one, is never accepted twice.
 */
import { generateSecret, generateSync, generateURI } from 'otplib';
import { constantTimeEqual } from '../../platform/crypto.js';

export const totpPeriodSeconds = 30;
const driftSteps = 1;

export type TotpAlgorithm = 'sha1' | 'sha256' | 'sha512';

export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

export function totpUri(secret: string, username: string): string {
  return generateURI({ issuer: 'svc hub', label: username, secret });
}

export function totpCodeAt(
  secret: string,
  epochSeconds: number,
  options: { digits?: 6 | 8; algorithm?: TotpAlgorithm } = {},
): string {
  return generateSync({
    secret,
    epoch: epochSeconds,
    digits: options.digits ?? 6,
    algorithm: options.algorithm ?? 'sha1',
  });
}

export function timeStepOf(epochSeconds: number): number {
  return Math.floor(epochSeconds / totpPeriodSeconds);
}

/** The time step the code matches, or null. Checks every candidate step so timing does not tell which. */
export function matchTotp(secret: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const step = timeStepOf(Math.floor(now.getTime() / 1000));
  let matched: number | null = null;
  for (let s = step - driftSteps; s <= step + driftSteps; s++) {
    if (constantTimeEqual(totpCodeAt(secret, s * totpPeriodSeconds), code) && matched === null) matched = s;
  }
  return matched;
}
