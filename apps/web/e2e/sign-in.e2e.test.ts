/**
 * Signing in and out of the console in chromium, against a real hub: password, two-factor with a TOTP code
 * and with a recovery code, the hub's refusal shown as it is, a lost session back at sign-in, sign-out; the
 * page's security headers and no CSP violation.
 */
import { generateSync } from 'otplib';
import { describe, expect, it } from 'vitest';
import { tlsRequest } from '@svc/testkit';
import { accessibilityProblems } from './axe.js';
import { useConsole, type ConsoleHarness } from './harness.js';

const h = useConsole();

/** A session cookie for `username`, made over the API as the console would (for 2FA setup). */
async function sessionCookie(t: ConsoleHarness, username: string, password: string): Promise<string> {
  const answer = await tlsRequest(`${t.baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: t.baseUrl },
    body: JSON.stringify({ username, password }),
    insecure: true,
  });
  const cookies = answer.headers['set-cookie'];
  const cookie = (Array.isArray(cookies) ? cookies : [String(cookies)])
    .find((c) => c.startsWith('svc_session='))
    ?.split(';')[0];
  if (!cookie) throw new Error(`no session: ${answer.status} ${answer.body}`);
  return cookie;
}

async function consoleCall(t: ConsoleHarness, cookie: string, urlPath: string, body: unknown) {
  const answer = await tlsRequest(`${t.baseUrl}${urlPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: t.baseUrl, cookie },
    body: JSON.stringify(body),
    insecure: true,
  });
  return JSON.parse(answer.body) as { data: Record<string, unknown> };
}

const totp = (secret: string, stepOffset = 0) =>
  generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + stepOffset * 30 });

describe('console sign-in', () => {
  // How fast it loads is measured by the console benchmark (bench/console.bench.ts), not timed here.
  it('serves the sign-in page with a strict CSP and no violation', async () => {
    const t = h();
    const response = await t.page.goto(`${t.baseUrl}/`);
    await t.page.getByRole('button', { name: 'Sign in' }).waitFor();

    expect(response?.status()).toBe(200);
    const headers = response?.headers() ?? {};
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['strict-transport-security']).toBe('max-age=63072000');
    await t.screenshot('sign-in');
    expect(t.cspViolations).toEqual([]);
    const problems = await accessibilityProblems(t.page, 'sign-in at 1280 px');
    await t.page.setViewportSize({ width: 390, height: 844 });
    problems.push(...(await accessibilityProblems(t.page, 'sign-in at 390 px')));
    await t.page.setViewportSize({ width: 1280, height: 800 });
    expect(problems).toEqual([]);
  });

  it("shows the hub's refusal of a wrong password as the hub words it", async () => {
    const t = h();
    await t.signInWith({ username: 'owner', password: 'not-the-password' });
    const alert = t.page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('401 unauthorized');
  });

  it('signs the owner in with the password, then out', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(await t.page.getByText('owner', { exact: true }).count()).toBeGreaterThan(0);

    await t.page.getByRole('button', { name: 'Sign out' }).click();
    await t.page.getByRole('button', { name: 'Sign in' }).waitFor();
    // The cookie is gone for the hub too: a reload stays at sign-in.
    await t.page.reload();
    await t.page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(t.cspViolations).toEqual([]);
  });

  it('returns to sign-in when the session is lost (any 401)', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.getByRole('heading', { name: 'Dashboard' }).waitFor();

    await t.context.clearCookies();
    await t.page.getByRole('link', { name: 'Assets', exact: true }).first().click();

    await t.page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await t.page.getByRole('heading', { name: 'Assets' }).count()).toBe(0);
  });

  it('asks for the second factor: a TOTP code, then a recovery code', async () => {
    const t = h();
    const operator = await t.signIn('operator');
    const cookie = await sessionCookie(t, operator.username, operator.password);
    const setup = await consoleCall(t, cookie, '/api/auth/2fa/setup', {});
    const secret = String(setup.data.secret);
    const verified = await consoleCall(t, cookie, '/api/auth/2fa/verify', { code: totp(secret) });
    const recoveryCodes = verified.data.recovery_codes as string[];
    expect(recoveryCodes).toHaveLength(8);

    // With a TOTP code (the next step: the one used to verify cannot be used again).
    await t.context.clearCookies();
    await t.signInWith(operator);
    await t.page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await t.screenshot('sign-in-2fa');
    await t.page.getByLabel('Code from your authenticator app').fill(totp(secret, 1));
    await t.page.getByRole('button', { name: 'Verify' }).click();
    await t.page.getByRole('heading', { name: 'Dashboard' }).waitFor();

    // With a recovery code.
    await t.page.getByRole('button', { name: 'Sign out' }).click();
    await t.signInWith(operator);
    await t.page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await t.page.getByLabel('Recovery code').fill(recoveryCodes[0] ?? '');
    await t.page.getByRole('button', { name: 'Verify' }).click();
    await t.page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(t.cspViolations).toEqual([]);
  });
});
