/**
 * The automation and fleet areas moved to the catalogues (decision 0090): groups, the Run page, service checks,
 * schedules, updates and the runtime settings. Each page (and its main dialog or form) is visited once in the
 * pseudo-locale, where every visible text, aria-label and placeholder must come from a catalogue or be data,
 * then once in German, which must show its language, no missing key, and each page's heading by its German name.
 */
import type { AgentRequestResult } from '@svc/protocol';
import { echoExec } from '@svc/testkit';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectFakeAgent, type EnrolledFake } from './fleet.js';
import { useConsole } from './harness.js';
import { de, expectLanguage, unmarkedTexts, waitSettled } from './languages-check.js';

const h = useConsole();

const agentName = 'lang-patch-01';
let fake: EnrolledFake | undefined;
let assetId = '';
let groupId = '';
let runId = '';

const update = {
  name: 'openssl',
  current_version: '3.0.13',
  new_version: '3.0.15',
  arch: 'amd64',
  source: 'bookworm-security',
  security: true,
};

beforeAll(async () => {
  const t = h();
  const agent = await connectFakeAgent(
    t,
    agentName,
    {
      'exec.run': echoExec,
      'updates.list': (): AgentRequestResult<'updates.list'> => ({
        manager: 'apt',
        updates: [update],
        truncated: false,
        reboot_required: true,
        last_patched_at: new Date(Date.now() - 3 * 86_400_000).toISOString(),
      }),
      'updates.simulate': (): AgentRequestResult<'updates.simulate'> => ({
        manager: 'apt',
        changes: [{ name: 'openssl', action: 'upgrade', from_version: '3.0.13', to_version: '3.0.15' }],
        truncated: false,
        output: 'Inst openssl [3.0.13] (3.0.15)',
        output_truncated: false,
      }),
    },
    { capabilities: ['exec', 'metrics', 'updates'] },
  );
  fake = agent;
  assetId = agent.assetId;
  const made = async (path: string, body: unknown): Promise<string> => {
    const answer = await t.api('POST', path, body);
    expect(answer.status, answer.text).toBe(201);
    return (answer.json.data as { id: string }).id;
  };
  groupId = await made('/api/v2/groups', { name: 'lang web', asset_ids: [assetId] });
  await made('/api/v2/checks', { name: 'lang check', kind: 'tcp', target: '127.0.0.1:9' });
  await made('/api/v2/schedules', {
    name: 'lang nightly',
    cron: '0 3 * * *',
    timezone: 'Europe/Berlin',
    command: 'uptime',
    targets: [assetId],
  });
  expect((await t.api('POST', `/api/v2/assets/${assetId}/updates/refresh`)).status).toBe(200);
  runId = await made('/api/v2/update-runs', {
    targets: [assetId],
    mode: 'dry_run',
    selection: 'all',
    start: 'now',
  });
}, 60_000);

afterAll(() => {
  fake?.agent.close();
});

/** unmarkedTexts within one element: the settings page sits in the admin frame, which is not migrated yet. */
const unmarkedWithin = (selector: string) =>
  unmarkedTexts.replaceAll('document.body', `document.querySelector(${JSON.stringify(selector)})`);

async function unmarked(page: Page, selector?: string): Promise<string[]> {
  await waitSettled(page);
  return page.evaluate<string[]>(selector === undefined ? unmarkedTexts : unmarkedWithin(selector));
}

describe('groups, run, checks, schedules, updates and settings', () => {
  it('marks every visible text in the pseudo-locale', async () => {
    const t = h();
    await t.signIn('owner');
    const { page } = t;
    const found: Record<string, string[]> = {};

    await page.goto(`${t.baseUrl}/groups?lang=pseudo`);
    await page.getByRole('link', { name: 'lang web' }).waitFor();
    found.groups = await unmarked(page);
    await page.locator('.page-header button.primary').click();
    await page.getByRole('dialog').locator('input').first().waitFor();
    found.groupForm = await unmarked(page);
    await page.keyboard.press('Escape');

    await page.goto(`${t.baseUrl}/groups/${groupId}`);
    await page.getByRole('link', { name: agentName }).waitFor();
    await page.locator('.members-table .status-badge').waitFor();
    // The bulk service form (features/bulk) is another area's, not migrated yet.
    await page.evaluate(`document.querySelector('section[aria-labelledby="bulk-title"]')?.remove()`);
    found.group = await unmarked(page);
    await page.locator('.page-actions button.danger').click();
    await page.getByRole('dialog').waitFor();
    found.groupDelete = await unmarked(page);
    await page.keyboard.press('Escape');

    await page.goto(`${t.baseUrl}/run?asset=${assetId}`);
    await page.locator('.chips .chip').waitFor();
    await page.locator('#run-command').fill('echo lang');
    await page.locator('.run-form button[type="submit"]').click();
    await page.locator(`li[data-asset-id="${assetId}"].result-ok`).waitFor();
    found.run = await unmarked(page);

    await page.goto(`${t.baseUrl}/checks`);
    await page.locator('tr[data-check-id]').waitFor();
    found.checks = await unmarked(page);
    await page.locator('tr[data-check-id] .row-actions button').first().click();
    await page.getByRole('dialog').waitFor();
    found.checkHistory = await unmarked(page);
    await page.keyboard.press('Escape');
    await page.locator('.page-header button.primary').click();
    await page.locator('#check-name').waitFor();
    await page.locator('input[name="check-run-from"]').last().check();
    found.checkForm = await unmarked(page);
    await page.keyboard.press('Escape');

    await page.goto(`${t.baseUrl}/schedules`);
    await page.locator('tr[data-schedule-id]').waitFor();
    await page.locator('tr[data-schedule-id] .cell-actions button').first().click();
    await page.locator('#history-title').waitFor();
    found.schedules = await unmarked(page);
    await page.locator('.page-header button.primary').click();
    await page.locator('input[name="schedule-runs"]').first().waitFor();
    found.scheduleForm = await unmarked(page);

    await page.goto(`${t.baseUrl}/updates`);
    await page.locator(`tr[data-asset-id="${assetId}"]`).waitFor();
    found.updates = await unmarked(page);
    await page.goto(`${t.baseUrl}/updates/runs`);
    await page.locator(`tr[data-run-id="${runId}"]`).waitFor();
    found.updateRuns = await unmarked(page);
    // An apply, which shows the most fields.
    await page.goto(`${t.baseUrl}/updates/runs/new?mode=apply`);
    await page.locator('input[name="update-run-mode"]').first().waitFor();
    found.newUpdateRun = await unmarked(page);
    await page.goto(`${t.baseUrl}/updates/runs/${runId}`);
    await page.locator('.results-list .output').waitFor();
    found.updateRun = await unmarked(page);

    await page.goto(`${t.baseUrl}/assets/${assetId}/updates`);
    await page.locator('[data-testid="updates-count"]').waitFor();
    found.assetUpdates = await unmarked(page);
    await page.locator('.row-actions button.primary').click();
    await page.getByRole('dialog').waitFor();
    found.applyDialog = await unmarked(page);
    await page.keyboard.press('Escape');
    await page.goto(`${t.baseUrl}/assets/${assetId}/checks`);
    await page.locator('.row-actions button').first().waitFor();
    found.assetChecks = await unmarked(page);

    await page.goto(`${t.baseUrl}/admin/settings`);
    const settings = 'section[aria-labelledby="settings-title"]';
    await page.locator('.settings-table').first().waitFor();
    found.settings = await unmarked(page, settings);
    await page.locator('.settings-domain .panel-header button').first().click();
    await page.locator('.settings-domain form').waitFor();
    found.settingsForm = await unmarked(page, settings);
    await page.locator('.restart-panel > button').click();
    await page.getByRole('dialog').waitFor();
    found.restartDialog = await unmarked(page, 'dialog[open]');
    await page.keyboard.press('Escape');

    expect(found).toEqual({
      groups: [],
      groupForm: [],
      group: [],
      groupDelete: [],
      run: [],
      checks: [],
      checkHistory: [],
      checkForm: [],
      schedules: [],
      scheduleForm: [],
      updates: [],
      updateRuns: [],
      newUpdateRun: [],
      updateRun: [],
      assetUpdates: [],
      applyDialog: [],
      assetChecks: [],
      settings: [],
      settingsForm: [],
      restartDialog: [],
    });
  }, 120_000);

  it('shows each page in German, headings by their German names', async () => {
    const t = h();
    await t.signIn('owner');
    const { page } = t;
    const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();

    await page.goto(`${t.baseUrl}/groups?lang=de`);
    await heading(de['groups.title']);
    await page.getByRole('columnheader', { name: 'Geändert' }).waitFor();
    await expectLanguage(page, 'de');
    await page.getByRole('link', { name: 'lang web' }).click();
    await page.getByRole('heading', { name: de['groups.members'].replace('{n}', '1') }).waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/run?asset=${assetId}`);
    await heading(de['run.title']);
    await page.getByLabel(de['run.command'], { exact: true }).fill('echo de');
    await page.getByRole('button', { name: de['run.run'], exact: true }).click();
    await page.getByText('1 Ziel: 1 OK').waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/checks`);
    await heading(de['checks.title']);
    await page.getByRole('button', { name: de['checks.new'] }).click();
    await page.getByRole('dialog', { name: de['checks.newTitle'] }).waitFor();
    await expectLanguage(page, 'de');
    await page.keyboard.press('Escape');

    await page.goto(`${t.baseUrl}/schedules`);
    await heading(de['schedules.title']);
    await page.getByRole('button', { name: 'Verlauf von lang nightly' }).waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/updates`);
    await heading(de['updates.title']);
    await page.getByRole('table', { name: de['updates.fleetTable'] }).getByText('vor 3 Tagen').waitFor();
    await expectLanguage(page, 'de');
    await page.goto(`${t.baseUrl}/updates/runs/${runId}`);
    await heading('Probelauf aller Updates');
    await expectLanguage(page, 'de');
    await page.goto(`${t.baseUrl}/assets/${assetId}/updates`);
    await page.getByRole('table', { name: de['updates.available'] }).waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/admin/settings`);
    await heading(de['settings.title']);
    await page.getByRole('button', { name: 'Einstellungen bearbeiten: Registrierung' }).waitFor();
    await expectLanguage(page, 'de');
    expect(t.cspViolations).toEqual([]);
  }, 90_000);
});
