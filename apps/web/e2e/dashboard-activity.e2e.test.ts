/**
 * The dashboard's recent activity names who acted and what on: after an admin edits an asset and creates a
 * key in the console, the entries show the asset's name linked to its page, the key's name and the admin's
 * username, and no raw asset or key id where a name exists.
 */
import { describe, expect, it } from 'vitest';
import type { Asset } from '@svc/protocol';
import { accessibilityProblems } from './axe.js';
import { useConsole } from './harness.js';

const h = useConsole();

describe('the dashboard recent activity', () => {
  it('names the asset, the key and the user, linked', async () => {
    const t = h();
    const made = await t.api('POST', '/api/v2/assets', { name: 'ledger-host', platform: 'other' });
    expect(made.status, made.text).toBe(201);
    const asset = made.json.data as Asset;

    await t.signIn('owner');
    const { page } = t;
    // As the signed-in admin (the session is the actor), the calls the console's forms make.
    const statuses = await page.evaluate(async (id) => {
      const json = { 'content-type': 'application/json' };
      const edited = await fetch(`/api/v2/assets/${id}`, {
        method: 'PUT',
        headers: json,
        body: JSON.stringify({ description: 'the books' }),
      });
      const key = await fetch('/api/v2/keys', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ name: 'deploy-bot', role: 'operator', scopes: ['assets:read'] }),
      });
      return [edited.status, key.status];
    }, asset.id);
    expect(statuses).toEqual([200, 201]);

    await page.goto(`${t.baseUrl}/dashboard`);
    const panel = page.locator('section.panel', {
      has: page.getByRole('heading', { name: 'Recent activity' }),
    });
    const edit = panel.getByTestId('audit-entry').filter({ hasText: 'asset.updated' });
    const assetLink = edit.getByRole('link', { name: 'ledger-host' });
    await assetLink.waitFor();
    expect(await assetLink.getAttribute('href')).toBe(`/assets/${asset.id}`);
    expect(await edit.getByRole('link', { name: 'owner', exact: true }).getAttribute('href')).toBe(
      '/admin/users',
    );

    const created = panel.getByTestId('audit-entry').filter({ hasText: 'api_key.created' }).first();
    await created.getByRole('link', { name: 'deploy-bot' }).waitFor();
    await created.getByRole('link', { name: 'owner', exact: true }).waitFor();

    const text = await panel.innerText();
    expect(text).not.toMatch(/\b(ast|key)_[0-9a-z]{26}\b/);
    expect(await accessibilityProblems(page, 'dashboard recent activity')).toEqual([]);
  });
});
