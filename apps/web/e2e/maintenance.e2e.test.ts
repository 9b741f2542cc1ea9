/**
 * Maintenance windows in chromium against a real hub: a recurring window made in the console's form (a bad
 * cron refused under its field, as the API refuses it), its next occurrences listed; a one-off window holding
 * now shown as in progress, with the "in maintenance" notice on the asset, group, alerts and schedules pages;
 * a schedule marked to run only in a window; the window removed after a confirmation; no axe findings. A
 * window edited in the same form, prefilled: its reason and recurrence changed (the list shows them), a bad
 * cron refused under its field, a one-off turned recurring.
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

  it("edits a window in the same form, the hub's refusal under the field it names", async () => {
    const t = h();
    await t.signIn('owner');
    const asset = (await t.api('POST', '/api/v2/assets', { name: 'edit-web' })).json.data as { id: string };
    const made = await t.api('POST', '/api/v2/maintenance/windows', {
      name: 'backup night',
      reason: 'nightly backups',
      asset_ids: [asset.id],
      cron: '0 1 * * *',
      duration_minutes: 60,
      timezone: 'UTC',
    });
    expect(made.status).toBe(201);
    const window = made.json.data as MaintenanceWindow;

    await t.page.goto(`${t.baseUrl}/maintenance`);
    const table = t.page.getByRole('table', { name: 'Maintenance windows' });
    const row = table.getByRole('row', { name: /backup night/ });
    await row.getByText('0 1 * * * for 60 min (UTC)').waitFor();

    // The form opens with the window's values, its asset by name.
    await table.getByRole('button', { name: 'Edit backup night' }).click();
    const dialog = t.page.getByRole('dialog', { name: 'Edit backup night' });
    expect(await dialog.getByLabel('Name').inputValue()).toBe('backup night');
    expect(await dialog.getByLabel('Reason').inputValue()).toBe('nightly backups');
    expect(await dialog.getByLabel('Recurring').isChecked()).toBe(true);
    expect(await dialog.getByLabel('Cron').inputValue()).toBe('0 1 * * *');
    await dialog.getByRole('list', { name: 'Chosen assets' }).getByText('edit-web').waitFor();
    await t.screenshot('maintenance-edit');

    // A bad cron: the hub's message under the Cron field, the dialog still open.
    await dialog.getByLabel('Reason').fill('backups and index rebuild');
    await dialog.getByLabel('Cron').fill('every night');
    await dialog.getByRole('button', { name: 'Save window' }).click();
    const cron = dialog.getByLabel('Cron');
    await expect.poll(() => cron.getAttribute('aria-invalid')).toBe('true');
    const problemId = `${(await cron.getAttribute('id')) ?? ''}-problem`;
    expect(await t.page.locator(`[id="${problemId}"]`).textContent()).toMatch(/5 fields/);

    // Fixed: the list shows the new reason and recurrence.
    await cron.fill('30 3 * * 6');
    await dialog.getByLabel('Duration (minutes)').fill('90');
    await dialog.getByRole('button', { name: 'Save window' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row.getByText('30 3 * * 6 for 90 min (UTC)').waitFor();
    await row.getByText('backups and index rebuild').waitFor();
    const stored = (await t.api('GET', `/api/v2/maintenance/windows/${window.id}`)).json
      .data as MaintenanceWindow;
    expect(stored).toMatchObject({
      reason: 'backups and index rebuild',
      cron: '30 3 * * 6',
      duration_minutes: 90,
      asset_ids: [asset.id],
    });

    // A one-off window turned recurring.
    const now = Date.now();
    const once = await t.api('POST', '/api/v2/maintenance/windows', {
      name: 'disk check',
      reason: 'fsck',
      asset_ids: [asset.id],
      starts_at: new Date(now + 86_400_000).toISOString(),
      ends_at: new Date(now + 90_000_000).toISOString(),
    });
    expect(once.status).toBe(201);
    await t.page.reload();
    await table.getByRole('button', { name: 'Edit disk check' }).click();
    const edit = t.page.getByRole('dialog', { name: 'Edit disk check' });
    expect(await edit.getByLabel('Once').isChecked()).toBe(true);
    expect(await edit.getByLabel('Starts').inputValue()).not.toBe('');
    await edit.getByLabel('Recurring').check();
    await edit.getByLabel('Cron').fill('0 4 1 * *');
    await edit.getByLabel('Time zone').fill('UTC');
    await edit.getByRole('button', { name: 'Save window' }).click();
    await edit.waitFor({ state: 'detached' });
    await table
      .getByRole('row', { name: /disk check/ })
      .getByText('0 4 1 * * for 120 min (UTC)')
      .waitFor();
    expect(await accessibilityProblems(t.page, 'the Maintenance page after edits')).toEqual([]);
  });
});
