/**
 * Maintenance windows in chromium against a real hub: a recurring window made in the console's form (a bad
 * cron refused under its field, as the API refuses it), its next occurrences listed; a one-off window holding
 * now shown as in progress, with the "in maintenance" notice on the asset, group, alerts and schedules pages;
 * a schedule marked to run only in a window; the window removed after a confirmation; no axe findings.
 */
import { describe, expect, it } from 'vitest';
import type { MaintenanceWindow } from '@svc/protocol';
import { accessibilityProblems } from './axe.js';
import { openNav, useConsole } from './harness.js';

const h = useConsole();

describe('the Maintenance page', () => {
  it('creates windows, shows them on the pages of what they cover, and removes them', async () => {
    const t = h();
    await t.signIn('owner');
    const asset = (await t.api('POST', '/api/v2/assets', { name: 'maint-db' })).json.data as { id: string };
    const group = (await t.api('POST', '/api/v2/groups', { name: 'maint-group', asset_ids: [asset.id] })).json
      .data as { id: string };

    await t.page.goto(`${t.baseUrl}/`);
    await openNav(t.page, 'Maintenance');
    await t.page.getByText('No maintenance windows').waitFor();

    // A recurring window through the form: a bad cron is refused under its field, then fixed.
    await t.page.getByRole('button', { name: 'New window' }).click();
    await t.page.getByLabel('Name').fill('patch night');
    await t.page.getByLabel('Reason').fill('monthly kernel updates');
    await t.page.getByRole('combobox', { name: /asset/i }).fill('maint-db');
    await t.page.getByRole('option', { name: /maint-db/ }).click();
    await t.page.getByLabel('Recurring').check();
    await t.page.getByLabel('Cron').fill('every night');
    await t.page.getByLabel('Time zone').fill('Europe/Berlin');
    await t.page.getByRole('button', { name: 'Create window' }).click();
    await t.page.getByText(/cron/i).first().waitFor();
    await t.page.getByLabel('Cron').fill('0 2 * * 0');
    await t.page.getByRole('button', { name: 'Create window' }).click();
    const table = t.page.getByRole('table', { name: 'Maintenance windows' });
    const row = table.getByRole('row', { name: /patch night/ });
    await row.waitFor();
    await row.getByRole('list', { name: 'Next occurrences of patch night' }).waitFor();
    expect(await row.getByRole('listitem').count()).toBe(3);
    expect(await accessibilityProblems(t.page, 'the Maintenance page')).toEqual([]);
    await t.screenshot('maintenance');

    // A one-off window holding now, on the group: the notice shows where its assets are.
    const now = Date.now();
    const made = await t.api('POST', '/api/v2/maintenance/windows', {
      name: 'disk swap',
      reason: 'replacing disks',
      group_ids: [group.id],
      starts_at: new Date(now - 60_000).toISOString(),
      ends_at: new Date(now + 3_600_000).toISOString(),
    });
    expect(made.status).toBe(201);
    const window = made.json.data as MaintenanceWindow;
    await t.page.reload();
    await table
      .getByRole('row', { name: /disk swap/ })
      .getByText(/In progress until/)
      .waitFor();

    for (const [path, what] of [
      [`/assets/${asset.id}`, 'the asset page'],
      [`/groups/${group.id}`, 'the group page'],
      ['/alerts', 'the alerts page'],
      ['/schedules', 'the schedules page'],
    ] as const) {
      await t.page.goto(`${t.baseUrl}${path}`);
      await t.page.getByTestId('maintenance-notice').waitFor();
      expect(await accessibilityProblems(t.page, what)).toEqual([]);
    }

    // A schedule that runs only in a window says so in the list.
    await t.page.getByRole('button', { name: 'New schedule' }).click();
    await t.page.getByLabel('Name').fill('patch run');
    await t.page.getByRole('textbox', { name: 'Command' }).fill('apt-get upgrade -y');
    await t.page.getByRole('combobox', { name: /asset/i }).fill('maint-db');
    await t.page.getByRole('option', { name: /maint-db/ }).click();
    await t.page.getByLabel(/Only inside a maintenance window/).check();
    await t.page.getByRole('button', { name: /Create schedule|Save/ }).click();
    await t.page
      .getByRole('row', { name: /patch run/ })
      .getByText('in a window only')
      .waitFor();

    // Removed after a confirmation: the notice goes.
    await t.page.goto(`${t.baseUrl}/maintenance`);
    await table.getByRole('button', { name: 'Remove disk swap' }).click();
    await t.page.getByRole('button', { name: 'Remove window' }).click();
    await table.getByRole('row', { name: /disk swap/ }).waitFor({ state: 'detached' });
    expect((await t.api('GET', `/api/v2/maintenance/windows/${window.id}`)).status).toBe(404);
    await t.page.goto(`${t.baseUrl}/assets/${asset.id}`);
    await t.page.getByRole('heading', { name: 'maint-db' }).waitFor();
    expect(await t.page.getByTestId('maintenance-notice').count()).toBe(0);
  });
});
