/**
 * Disabling, enabling and deleting a user in chromium against a real hub (decision 0087): the user's open
 * console is signed out and their key refused while disabled, the key works again once enabled, and a delete
 * removes them; each step behind a dialog that says what it does.
 */
import { describe, expect, it } from 'vitest';
import type { ApiKeyCreated } from '@svc/protocol';
import { useConsole } from './harness.js';

const h = useConsole();

describe('disabling and deleting users', () => {
  it('signs out a disabled user and refuses their key, enables them, then deletes them', async () => {
    const t = h();
    const victim = { username: 'vic', password: 'vic-password-long-enough' };
    const made = await t.api('POST', '/api/auth/users', { ...victim, role: 'admin' });
    expect(made.status, made.text).toBe(201);

    // Vic signs in in a browser of their own and makes a key there.
    const theirs = await t.browser.newContext({ ignoreHTTPSErrors: true });
    const vic = await theirs.newPage();
    await vic.goto(`${t.baseUrl}/dashboard`);
    await vic.getByLabel('Username').fill(victim.username);
    await vic.getByLabel('Password').fill(victim.password);
    await vic.getByRole('button', { name: 'Sign in' }).click();
    await vic.getByRole('navigation', { name: 'Main' }).waitFor();
    const key = await vic.evaluate(async () => {
      const res = await fetch('/api/v2/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'vic key', role: 'admin', scopes: ['*'] }),
      });
      return ((await res.json()) as { data: ApiKeyCreated }).data.raw_key;
    });
    expect((await t.api('GET', '/api/v2/whoami', undefined, key)).status).toBe(200);

    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/admin/users`);
    await t.page.getByRole('button', { name: 'Disable vic' }).click();
    const disable = t.page.getByRole('dialog', { name: 'Disable vic?' });
    await disable.getByText('every console session they have ends now').waitFor();
    await disable.getByText('Their API keys answer 401').waitFor();
    await t.screenshot('admin-user-disable');
    await disable.getByRole('button', { name: 'Disable user' }).click();
    await disable.waitFor({ state: 'hidden' });
    await t.page.getByTestId('disabled-vic').waitFor();
    await t.screenshot('admin-users-disabled');

    // Vic's open console is signed out at its next request; the key answers 401; sign-in says why.
    // Its next request is a page change, unless a background refetch made it first: the console then swaps
    // to the sign-in page under the click (the link detached), which is the same outcome.
    await vic
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link')
      .first()
      .click({ timeout: 5_000 })
      .catch(() => vic.getByRole('button', { name: 'Sign in' }).waitFor());
    await vic.reload();
    await vic.getByRole('button', { name: 'Sign in' }).waitFor();
    expect((await t.api('GET', '/api/v2/whoami', undefined, key)).status).toBe(401);
    await vic.getByLabel('Username').fill(victim.username);
    await vic.getByLabel('Password').fill(victim.password);
    await vic.getByRole('button', { name: 'Sign in' }).click();
    await vic.getByText('This account is disabled').waitFor();

    await t.page.getByRole('button', { name: 'Enable vic' }).click();
    const enable = t.page.getByRole('dialog', { name: 'Enable vic?' });
    await enable.getByRole('button', { name: 'Enable user' }).click();
    await enable.waitFor({ state: 'hidden' });
    await t.page.getByTestId('disabled-vic').waitFor({ state: 'detached' });
    expect((await t.api('GET', '/api/v2/whoami', undefined, key)).status).toBe(200);

    await t.page.getByRole('button', { name: 'Delete vic' }).click();
    const remove = t.page.getByRole('dialog', { name: 'Delete vic?' });
    await remove.getByText('removed for good').waitFor();
    await remove.getByText('Their shared snippets stay for the others').waitFor();
    await remove.getByLabel('Schedules and shared snippets go to').waitFor();
    await t.screenshot('admin-user-delete');
    await remove.getByRole('button', { name: 'Delete user' }).click();
    await remove.waitFor({ state: 'hidden' });
    await t.page.getByRole('rowheader', { name: 'vic' }).waitFor({ state: 'detached' });
    expect((await t.api('GET', '/api/v2/whoami', undefined, key)).status).toBe(401);
    const users = await t.api('GET', '/api/auth/users?per_page=100');
    expect(JSON.stringify(users.json.data)).not.toContain('"vic"');
    await theirs.close();
  });
});
