/**
 * The signed-in user's own security in chromium against a real hub: two-factor sign-in turned on through the
 * page (the code computed from the secret it shows), the recovery codes shown once and downloaded, a sign-in
 * with the second factor, turning it off with a recovery code; and the user's own password change.
 */
import fs from 'node:fs';
import { generateSync } from 'otplib';
import { decodeQR } from 'qr/decode.js';
import { describe, expect, it } from 'vitest';
import { useConsole, type ConsoleHarness } from './harness.js';

const h = useConsole();

/**
 * Reads the page's QR code as a phone would: the SVG drawn on a canvas with a wide white margin, its pixels
 * decoded in Node.
 */
async function scanQrCode(t: ConsoleHarness): Promise<string> {
  const image = await t.page.evaluate<{ width: number; height: number; data: number[] }>(`(async () => {
    const svg = document.querySelector('svg.qr-code');
    const img = new Image();
    img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(new XMLSerializer().serializeToString(svg));
    await img.decode();
    const side = 240;
    const canvas = document.createElement('canvas');
    canvas.width = side;
    canvas.height = side;
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, side, side);
    context.drawImage(img, 20, 20, side - 40, side - 40);
    return { width: side, height: side, data: Array.from(context.getImageData(0, 0, side, side).data) };
  })()`);
  return decodeQR({ width: image.width, height: image.height, data: Uint8Array.from(image.data) });
}

const totp = (secret: string, stepOffset = 0) =>
  generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + stepOffset * 30 });

describe('console account security', () => {
  it('turns two-factor sign-in on through the page, then signs in with it and turns it off', async () => {
    const t = h();
    const admin = await t.signIn('admin');
    // The header's link to the signed-in user's own page (the dashboard's activity links usernames too).
    await t.page
      .getByRole('banner')
      .getByRole('link', { name: /admin-user/ })
      .click();
    await t.page.getByRole('heading', { name: 'Account security', level: 1 }).waitFor();
    await t.page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();

    const secret = (await t.page.getByTestId('totp-secret').textContent()) ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await t.page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    const uri = new URL(await scanQrCode(t));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(secret);
    await t.screenshot('account-2fa-setup');
    await t.page.getByLabel('Code from your authenticator app').fill(totp(secret));
    await t.page.getByRole('button', { name: 'Turn on' }).click();

    const codes = t.page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await codes.first().waitFor();
    const recoveryCodes = (await codes.allTextContents()).map((c) => c.trim());
    expect(recoveryCodes).toHaveLength(8);
    const [download] = await Promise.all([
      t.page.waitForEvent('download'),
      t.page.getByRole('button', { name: 'Download the codes' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('svc-recovery-codes.txt');
    const saved = fs.readFileSync(await download.path(), 'utf8');
    for (const code of recoveryCodes) expect(saved).toContain(code);
    await t.screenshot('account-recovery-codes');
    await t.page.getByRole('button', { name: 'I have saved them' }).click();
    await t.page.getByTestId('2fa-state').waitFor();

    // Signing in now asks for the second factor (the next step: the one used to turn it on is spent).
    await t.page.getByRole('button', { name: 'Sign out' }).click();
    await t.signInWith(admin);
    await t.page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await t.page.getByLabel('Code from your authenticator app').fill(totp(secret, 1));
    await t.page.getByRole('button', { name: 'Verify' }).click();
    await t.page.getByRole('heading', { name: 'Dashboard' }).waitFor();

    // Off again, with a recovery code, confirmed.
    await t.page.goto(`${t.baseUrl}/account/security`);
    await t.page.getByTestId('2fa-state').waitFor();
    await t.screenshot('account-security');
    await t.page.getByRole('button', { name: 'Turn off' }).click();
    await t.page.getByLabel('Authenticator or recovery code').fill(recoveryCodes[0] ?? '');
    await t.page.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
    await t.page
      .getByRole('dialog', { name: 'Turn two-factor sign-in off?' })
      .getByRole('button', { name: 'Turn it off' })
      .click();
    await t.page.getByRole('button', { name: 'Set up two-factor sign-in' }).waitFor();
    expect(t.cspViolations).toEqual([]);
  }, 45_000);

  it("shows a wrong code's refusal as the hub words it", async () => {
    const t = h();
    await t.page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await t.page.getByLabel('Code from your authenticator app').fill('000000');
    await t.page.getByRole('button', { name: 'Turn on' }).click();
    const alert = t.page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('400 validation: The code does not match the new secret.');
    // Still set up, not signed out: a wrong code is not a lost session.
    await t.page.getByTestId('totp-secret').waitFor();
  });

  it('changes the own password; the new one signs in', async () => {
    const t = h();
    const operator = await t.signIn('operator');
    await t.page.goto(`${t.baseUrl}/account/security`);
    const form = t.page.getByRole('form', { name: 'Change your password' });
    await form.getByLabel('Current password').fill('not the password');
    await form.getByLabel('New password', { exact: true }).fill('a brand new passphrase');
    await form.getByLabel('New password again').fill('a brand new passphrase');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('is not the current password', { exact: true }).waitFor();
    expect(await form.getByLabel('Current password').getAttribute('aria-invalid')).toBe('true');

    await form.getByLabel('Current password').fill(operator.password);
    await form.getByLabel('New password again').fill('a different passphrase');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('does not match the new password', { exact: true }).waitFor();

    await form.getByLabel('New password again').fill('a brand new passphrase');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('Password changed.').waitFor();

    await t.page.getByRole('button', { name: 'Sign out' }).click();
    await t.signInWith({ username: operator.username, password: 'a brand new passphrase' });
    await t.page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  });
});
