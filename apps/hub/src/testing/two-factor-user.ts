/**
 * Signing in with two factors in tests: the session cookie a sign-in sets, TOTP codes right and wrong for a
 * hub's test clock, and turning 2FA on for a signed-in user as the console does.
 */
import { expect } from 'vitest';
import type { RecoveryCodes, TotpSetup } from '@svc/protocol';
import type { InjectResult, TestHub } from '@svc/testkit';
import { timeStepOf, totpCodeAt, totpPeriodSeconds } from '../modules/auth/totp.js';
import type { Clock } from '../platform/clock.js';

/** inject()'s default Host, as the console's own pages would send it in Origin. */
export const ownOrigin = 'http://localhost:80';

/** `svc_session=…` from a response's Set-Cookie, or null when it sets none. */
export function sessionCookieOf(res: InjectResult): string | null {
  const header = res.headers['set-cookie'];
  const list = header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
  const cookie = list.find((c) => c.startsWith('svc_session='));
  return cookie ? (cookie.split(';')[0] ?? null) : null;
}

/** The TOTP code for the clock's current step, or a step before/after it. */
export function totpCodeNow(clock: Clock, secret: string, stepOffset = 0): string {
  const step = timeStepOf(Math.floor(clock.now().getTime() / 1000)) + stepOffset;
  return totpCodeAt(secret, step * totpPeriodSeconds);
}

/** Six digits that are none of the codes valid now (current step ± 1). */
export function wrongTotpCode(clock: Clock, secret: string): string {
  const valid = new Set([-1, 0, 1].map((d) => totpCodeNow(clock, secret, d)));
  let n = Number(totpCodeNow(clock, secret));
  let candidate: string;
  do {
    n = (n + 1) % 1_000_000;
    candidate = String(n).padStart(6, '0');
  } while (valid.has(candidate));
  return candidate;
}

/**
 * Turns 2FA on for the user signed in with `cookie` (setup, then verify with the current code), then moves the
 * hub's clock past the step that code used, so the next code is a fresh one. `origin`: the hub's own (another
 * one for a hub that `injectAsHttps`).
 */
export async function enableTwoFactor(
  hub: TestHub,
  cookie: string,
  origin = ownOrigin,
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const asUser = { key: null, headers: { cookie, origin } };
  const setup = await hub.request('POST', '/api/auth/2fa/setup', asUser);
  expect(setup.status, setup.text).toBe(200);
  const { secret } = setup.json.data as TotpSetup;
  const verified = await hub.request('POST', '/api/auth/2fa/verify', {
    ...asUser,
    body: { code: totpCodeNow(hub.clock, secret) },
  });
  expect(verified.status, verified.text).toBe(200);
  hub.clock.advance(totpPeriodSeconds * 1000);
  return { secret, recoveryCodes: (verified.json.data as RecoveryCodes).recovery_codes };
}
