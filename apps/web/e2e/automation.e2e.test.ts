/**
 * Saved actions, schedules and the bulk service form in chromium against a real hub with its local agent:
 * an action made with the asset picker and run on this machine, its output shown, then edited and run
 * again; a schedule made in the form and listed with its next run, edited, paused and resumed; the service
 * form on a group's page answering per member.
 */
import { describe, expect, it } from 'vitest';
import type { Group, SavedAction, Schedule } from '@svc/protocol';
import { useConsole } from './harness.js';
import { localAsset } from './fleet.js';

const h = useConsole({ localAgent: true });

describe('automation pages', () => {
  it('creates a saved action on the local agent, runs it and shows its output', async () => {
    const t = h();
    const local = await localAsset(t);
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/actions`);
    await t.page.getByText('No saved actions yet').waitFor();
    await t.page.getByRole('button', { name: 'New action' }).click();
    await t.page.getByLabel('Name', { exact: true }).fill('hello');
    await t.page.getByRole('combobox', { name: 'Add an asset' }).fill(local.name);
    await t.page.getByRole('option', { name: local.name, exact: true }).click();
    await t.page.getByLabel('Command', { exact: true }).fill('echo hello-from-action');
    await t.page.getByRole('button', { name: 'Save action' }).click();

    const row = t.page.getByRole('table', { name: 'Saved actions' }).getByRole('row', { name: /hello/ });
    await row.waitFor();
    await row.getByRole('button', { name: 'Run hello' }).click();
    const result = t.page.locator(`li[data-asset-id="${local.id}"]`);
    await result.locator('.result-status', { hasText: 'ok' }).waitFor();
    expect(await result.locator('pre').first().textContent()).toBe('hello-from-action\n');
    await t.page.getByText('1 target: 1 ok').waitFor();
    await t.screenshot('actions');

    // Edited: the form opens with what it runs and where (the asset by name), and saves the change.
    await row.getByRole('button', { name: 'Edit hello' }).click();
    const form = t.page.getByRole('form', { name: 'Edit hello' });
    expect(await form.getByLabel('Command', { exact: true }).inputValue()).toBe('echo hello-from-action');
    await form.getByText(local.name).first().waitFor();
    await form.getByLabel('Name', { exact: true }).fill('hello again');
    await form.getByLabel('Command', { exact: true }).fill('echo edited-action');
    await t.screenshot('action-edit');
    await form.getByRole('button', { name: 'Save action' }).click();
    const edited = t.page
      .getByRole('table', { name: 'Saved actions' })
      .getByRole('row', { name: /hello again/ });
    await edited.getByText('echo edited-action').waitFor();
    const stored = (await t.api('GET', '/api/v2/actions')).json.data as SavedAction[];
    expect(stored).toMatchObject([
      { name: 'hello again', command: 'echo edited-action', targets: [local.id] },
    ]);
    await edited.getByRole('button', { name: 'Run hello again' }).click();
    await result.locator('pre', { hasText: 'edited-action' }).waitFor();
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it('creates a schedule in the form and lists it with its next run', async () => {
    const t = h();
    const local = await localAsset(t);
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/schedules`);
    await t.page.getByRole('button', { name: 'New schedule' }).click();
    await t.page.getByLabel('Name', { exact: true }).fill('nightly uptime');
    await t.page.getByLabel('Cron expression').fill('30 2 * * *');
    await t.page.getByLabel('Time zone').fill('Nope/Nowhere');
    await t.page.getByLabel('Command', { exact: true }).fill('uptime');
    await t.page.getByRole('combobox', { name: 'Add an asset' }).fill(local.name);
    await t.page.getByRole('option', { name: local.name, exact: true }).click();
    await t.page.getByRole('button', { name: 'Save schedule' }).click();
    // The hub's refusal shows under the field it names.
    await t.page.getByText(/is not an IANA time zone/).waitFor();
    await t.page.getByLabel('Time zone').fill('Europe/Berlin');
    await t.page.getByRole('button', { name: 'Save schedule' }).click();

    const row = t.page.getByRole('table', { name: 'Schedules' }).getByRole('row', { name: /nightly uptime/ });
    await row.waitFor();
    const listed = (await t.api('GET', '/api/v2/schedules')).json.data as Schedule[];
    const schedule = listed.find((s) => s.name === 'nightly uptime');
    expect(schedule?.timezone).toBe('Europe/Berlin');
    const next = new Date(schedule?.next_run_at ?? '');
    // 02:30 in Berlin is 00:30 or 01:30 UTC, within the next day.
    expect(next.getUTCMinutes()).toBe(30);
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000);
    expect((await row.locator('.next-run').textContent())?.trim()).not.toBe('none');
    await row.getByRole('button', { name: 'History of nightly uptime' }).click();
    await t.page.getByText('No runs yet').waitFor();
    await t.screenshot('schedules');

    // Edited: a new time and command.
    await row.getByRole('button', { name: 'Edit nightly uptime' }).click();
    const form = t.page.getByRole('form', { name: 'Edit nightly uptime' });
    expect(await form.getByLabel('Cron expression').inputValue()).toBe('30 2 * * *');
    await form.getByLabel('Name', { exact: true }).fill('nightly load');
    await form.getByLabel('Cron expression').fill('15 4 * * *');
    await form.getByLabel('Command', { exact: true }).fill('cat /proc/loadavg');
    await form.getByRole('button', { name: 'Save schedule' }).click();
    const edited = t.page
      .getByRole('table', { name: 'Schedules' })
      .getByRole('row', { name: /nightly load/ });
    await edited.getByText('15 4 * * *').waitFor();
    await edited.getByText('cat /proc/loadavg').waitFor();
    const after = ((await t.api('GET', '/api/v2/schedules')).json.data as Schedule[])[0];
    expect(after).toMatchObject({
      name: 'nightly load',
      cron: '15 4 * * *',
      targets: [local.id],
      enabled: true,
    });
    expect(new Date(after?.next_run_at ?? '').getUTCMinutes()).toBe(15);

    // Paused: no next run; resumed: the next tick again.
    await edited.getByRole('button', { name: 'Pause nightly load' }).click();
    await edited.locator('.next-run', { hasText: 'paused' }).waitFor();
    const paused = ((await t.api('GET', '/api/v2/schedules')).json.data as Schedule[])[0];
    expect(paused).toMatchObject({ enabled: false, next_run_at: null });
    await t.screenshot('schedule-paused');
    await edited.getByRole('button', { name: 'Resume nightly load' }).click();
    await edited.getByRole('button', { name: 'Pause nightly load' }).waitFor();
    const resumed = ((await t.api('GET', '/api/v2/schedules')).json.data as Schedule[])[0];
    expect(resumed?.enabled).toBe(true);
    expect(resumed?.next_run_at).toBe(after?.next_run_at);
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it('applies a service action to every member of a group, one line per member', async () => {
    const t = h();
    const local = await localAsset(t);
    const made = await t.api('POST', '/api/v2/groups', { name: 'bulk-group', asset_ids: [local.id] });
    const group = made.json.data as Group;
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/groups/${group.id}`);
    await t.page.getByLabel('Service', { exact: true }).fill('svc-no-such-unit.service');
    await t.page.getByLabel('Action', { exact: true }).selectOption('restart');
    await t.page.getByRole('button', { name: 'Apply to the group' }).click();
    const line = t.page.locator(`tr[data-asset-id="${local.id}"]`);
    await line.waitFor();
    // This machine may lack systemd or the unit: either way the member answers, as a result, not a failure.
    expect(['ok', 'error']).toContain((await line.locator('td').first().textContent())?.trim());
    await t.page.getByText(/1 target:/).waitFor();
    await t.screenshot('group-bulk-service');
  }, 60_000);
});
