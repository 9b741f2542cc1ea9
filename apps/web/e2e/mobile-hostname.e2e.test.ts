/**
 * The phone app opened by IP address (`https://127.0.0.1:<port>/m/`, as a README user may): passkeys cannot
 * work there (WebAuthn's relying party cannot be an IP address), so the device-owner check before a terminal
 * cannot run. The app says so where the terminal would open and offers the names of the hub's certificate
 * (`localhost` among them) as links to the same page; the hub refuses the ceremony with its own code.
 */
import { describe, expect, it } from 'vitest';
import { createManualAsset } from './fleet.js';
import { useConsole } from './harness.js';

const h = useConsole({ viewport: { width: 390, height: 844 } });

describe('the phone app opened by IP address', () => {
  it('says passkeys need a name and links the hub by the names in its certificate', async () => {
    const t = h();
    expect(new URL(t.baseUrl).hostname).toBe('127.0.0.1');
    const asset = await createManualAsset(t, 'by-address-box');
    const assetPath = `/m/assets/${encodeURIComponent(asset.id)}`;
    await t.page.goto(`${t.baseUrl}/m/`);
    await t.page.getByLabel('Username').fill('owner');
    await t.page.getByLabel('Password').fill(t.ownerPassword ?? '');
    await t.page.getByRole('button', { name: 'Sign in' }).click();
    await t.page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
    await t.page.goto(`${t.baseUrl}${assetPath}`);

    const section = t.page.getByRole('region', { name: 'Remote session' });
    const notice = section.getByRole('alert');
    await notice
      .getByText(/Passkeys do not work when the hub is opened by an IP address \(127\.0\.0\.1\)/)
      .waitFor();
    const port = new URL(t.baseUrl).port;
    const byName = notice.getByRole('link', { name: `https://localhost:${port}${assetPath}` });
    await byName.waitFor();
    expect(await byName.getAttribute('href')).toBe(`https://localhost:${port}${assetPath}`);
    // The button that could only fail is off; the notice says why.
    expect(await section.getByRole('button', { name: 'Open terminal' }).isDisabled()).toBe(true);
    await t.screenshot('mobile-by-address');

    // The hub says the same to a page that tries anyway.
    const refused = await t.page.evaluate(async () => {
      const answer = await fetch('/api/mobile/webauthn/registration-options', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ device_id: 'phone-by-address' }),
      });
      return { status: answer.status, body: (await answer.json()) as { error: string; message: string } };
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('webauthn_needs_hostname');
    expect(refused.body.message).toContain(`https://localhost:${port}`);

    // The link leads to the same hub by its name, where the notice is gone.
    await byName.click();
    await t.page.waitForURL(`https://localhost:${port}/**`);
    await t.page.getByLabel('Username').fill('owner');
    await t.page.getByLabel('Password').fill(t.ownerPassword ?? '');
    await t.page.getByRole('button', { name: 'Sign in' }).click();
    await t.page
      .getByRole('region', { name: 'Remote session' })
      .getByRole('button', { name: 'Open terminal' })
      .waitFor();
    expect(await t.page.getByText(/Passkeys do not work/).count()).toBe(0);
  }, 60_000);
});
