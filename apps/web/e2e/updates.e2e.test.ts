/**
 * The Updates pages in chromium against a real hub, with two fake agents answering the updates.* messages as
 * a package manager would: the fleet view showing which machine needs updates and how many are security
 * ones, filtered, one machine refreshed; a dry run from the form showing each target's planned changes; an
 * apply from the asset's Updates tab, confirmed, showing what changed and the manager's output; the tab
 * listing the updates (security marked); a viewer seeing the pages with no run control; nothing wider than a
 * phone at 390 px; no axe findings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRequestPayload, AgentRequestResult, AvailableUpdate, PlannedChange } from '@svc/protocol';
import { accessibilityProblems } from './axe.js';
import { openNav, useConsole } from './harness.js';
import { connectFakeAgent, type EnrolledFake } from './fleet.js';

const h = useConsole();

const update = (name: string, from: string, to: string, security: boolean): AvailableUpdate => ({
  name,
  current_version: from,
  new_version: to,
  arch: 'amd64',
  source: security ? 'Debian-Security:12/stable-security' : 'Debian:12.8/stable',
  security,
});

const webUpdates = [
  update('openssl', '3.0.13-1~deb12u1', '3.0.15-1~deb12u1', true),
  update('libssl3', '3.0.13-1~deb12u1', '3.0.15-1~deb12u1', true),
  update('curl', '7.88.1-10+deb12u7', '7.88.1-10+deb12u8', false),
];

const twelveDaysAgo = new Date(Date.now() - 12 * 86_400_000).toISOString();

function changesOf(updates: readonly AvailableUpdate[], selection: string, names: readonly string[]) {
  return updates
    .filter((u) => selection === 'all' || (selection === 'security' ? u.security : names.includes(u.name)))
    .map((u): PlannedChange => ({
      name: u.name,
      action: 'upgrade',
      from_version: u.current_version,
      to_version: u.new_version,
    }));
}

/** A machine whose package manager (apt) offers `updates`, and which after an apply has none left. */
function aptMachine(
  updates: AvailableUpdate[],
  calls: { list: number; apply: AgentRequestPayload<'updates.apply'>[] },
) {
  let available = updates;
  return {
    'updates.list': (): AgentRequestResult<'updates.list'> => {
      calls.list += 1;
      return {
        manager: 'apt',
        updates: available,
        truncated: false,
        reboot_required: available.length > 0,
        last_patched_at: twelveDaysAgo,
      };
    },
    'updates.simulate': (
      payload: AgentRequestPayload<'updates.simulate'>,
    ): AgentRequestResult<'updates.simulate'> => {
      const changes = changesOf(available, payload.selection, payload.packages);
      return {
        manager: 'apt',
        changes,
        truncated: false,
        output: changes
          .map((c) => `Inst ${c.name} [${c.from_version ?? ''}] (${c.to_version ?? ''})`)
          .join('\n'),
        output_truncated: false,
      };
    },
    'updates.apply': (payload: AgentRequestPayload<'updates.apply'>): AgentRequestResult<'updates.apply'> => {
      calls.apply.push(payload);
      const changes = changesOf(available, payload.selection, payload.packages);
      available = available.filter((u) => !changes.some((c) => c.name === u.name));
      return {
        manager: 'apt',
        changes,
        truncated: false,
        exit_code: 0,
        timed_out: false,
        duration_ms: 4200,
        reboot_required: true,
        rebooting: false,
        output: changes.map((c) => `Setting up ${c.name} (${c.to_version ?? ''}) ...`).join('\n'),
        output_truncated: false,
      };
    },
  };
}

let web: EnrolledFake;
let db: EnrolledFake;
const webCalls = { list: 0, apply: [] as AgentRequestPayload<'updates.apply'>[] };
const dbCalls = { list: 0, apply: [] as AgentRequestPayload<'updates.apply'>[] };

beforeAll(async () => {
  const t = h();
  web = await connectFakeAgent(t, 'patch-web', aptMachine(webUpdates, webCalls), {
    capabilities: ['exec', 'metrics', 'updates'],
  });
  db = await connectFakeAgent(t, 'patch-db', aptMachine([], dbCalls), {
    capabilities: ['exec', 'metrics', 'updates'],
  });
  // Each machine's first report, as the hub asks for it (on connect, or here at once).
  for (const id of [web.assetId, db.assetId]) {
    const refreshed = await t.api('POST', `/api/v2/assets/${id}/updates/refresh`);
    expect(refreshed.status, refreshed.text).toBe(200);
  }
}, 60_000);

afterAll(() => {
  web.agent.close();
  db.agent.close();
});

describe('the Updates pages', () => {
  it('shows which machines need updates, with their security count, filtered, and refreshes one', async () => {
    const t = h();
    await t.signIn('owner');
    await openNav(t.page, 'Updates');
    const table = t.page.getByRole('table', { name: 'Machines and their updates' });
    const webRow = table.getByRole('row', { name: /patch-web/ });
    await webRow.waitFor();
    const cells = webRow.getByRole('cell');
    // Updates, security, reboot, last patched.
    expect(await cells.nth(0).textContent()).toBe('3');
    expect(await cells.nth(1).textContent()).toBe('2');
    expect(await cells.nth(2).textContent()).toBe('Required');
    expect(await cells.nth(3).textContent()).toBe('12 days ago');
    await table.getByRole('row', { name: /patch-db/ }).waitFor();
    expect(await accessibilityProblems(t.page, 'the Updates page')).toEqual([]);
    await t.screenshot('updates');

    // Security only: the machine with none goes; the filter is in the address.
    await t.page.getByLabel('Show').selectOption({ label: 'Needs security updates' });
    await table.getByRole('row', { name: /patch-db/ }).waitFor({ state: 'detached' });
    expect(t.page.url()).toContain('security=1');
    await webRow.waitFor();
    await t.page.getByLabel('Show').selectOption({ label: 'All machines' });
    await table.getByRole('row', { name: /patch-db/ }).waitFor();

    // One machine refreshed: its agent is asked again.
    const before = dbCalls.list;
    await table.getByRole('button', { name: 'Refresh patch-db' }).click();
    await t.page.getByRole('status').filter({ hasText: 'patch-db reported no updates.' }).waitFor();
    expect(dbCalls.list).toBe(before + 1);
  });

  it('runs a dry run from the form and shows each target’s planned changes', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/updates`);
    await t.page.getByRole('button', { name: 'New update run' }).click();
    await t.page.waitForURL(/\/updates\/runs\/new$/);
    for (const name of ['patch-web', 'patch-db']) {
      await t.page.getByRole('combobox', { name: /asset/i }).fill(name);
      await t.page.getByRole('option', { name: new RegExp(name) }).click();
    }
    expect(await t.page.getByLabel('Dry run (the manager simulates)').isChecked()).toBe(true);
    await t.page.getByLabel('Security only').check();
    expect(await accessibilityProblems(t.page, 'the update run form')).toEqual([]);
    await t.screenshot('update-run-form');
    await t.page.getByRole('button', { name: 'Start dry run' }).click();
    await t.page.waitForURL(/\/updates\/runs\/upr_/);
    await t.page.getByRole('heading', { name: 'Dry run of security only' }).waitFor();
    await expect
      .poll(() => t.page.getByTestId('update-run-status').textContent(), { timeout: 20_000 })
      .toBe('completed');

    const planned = t.page.getByRole('table', { name: 'Planned changes on patch-web' });
    await planned
      .getByRole('row', { name: /openssl/ })
      .getByText('3.0.13-1~deb12u1 → 3.0.15-1~deb12u1')
      .waitFor();
    await planned.getByRole('row', { name: /libssl3/ }).waitFor();
    // Security only: curl is not planned.
    expect(await planned.getByRole('row', { name: /curl/ }).count()).toBe(0);
    const dbTarget = t.page.locator(`li[data-asset-id="${db.assetId}"]`);
    await dbTarget.getByText('Nothing to change').waitFor();
    expect(webCalls.apply).toEqual([]);
    expect(await accessibilityProblems(t.page, 'a dry run')).toEqual([]);
    await t.screenshot('update-run-dry');
  });

  it('lists a machine’s updates on its tab, and applies them there with the result shown', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/assets/${web.assetId}/updates`);
    const list = t.page.getByRole('table', { name: 'Available updates' });
    await list
      .getByRole('row', { name: /openssl/ })
      .getByText('security')
      .first()
      .waitFor();
    await list.getByRole('row', { name: /curl/ }).waitFor();
    expect(await list.getByRole('row', { name: /curl/ }).getByText('security', { exact: true }).count()).toBe(
      0,
    );
    expect(await t.page.getByTestId('security-count').textContent()).toBe('2');
    expect(await accessibilityProblems(t.page, 'the asset’s Updates tab')).toEqual([]);
    await t.screenshot('asset-updates');

    await t.page.getByRole('button', { name: 'Apply', exact: true }).click();
    await t.page.getByRole('button', { name: 'Apply updates' }).click();
    await t.page.waitForURL(/\/updates\/runs\/upr_/);
    await t.page.getByRole('heading', { name: 'Apply of all updates' }).waitFor();
    await expect
      .poll(() => t.page.getByTestId('update-run-status').textContent(), { timeout: 20_000 })
      .toBe('completed');
    const target = t.page.locator(`li[data-asset-id="${web.assetId}"]`);
    await target.getByText('ok', { exact: true }).waitFor();
    await target.getByText('reboot required').waitFor();
    const done = t.page.getByRole('table', { name: 'Changes on patch-web' });
    await done.getByRole('row', { name: /curl/ }).waitFor();
    await t.page
      .getByLabel('Output on patch-web')
      .getByText(/Setting up openssl/)
      .waitFor();
    expect(webCalls.apply).toHaveLength(1);
    expect(webCalls.apply[0]).toMatchObject({ selection: 'all', reboot_if_required: false });
    await t.screenshot('update-run-apply');

    // The runs list has both runs; the machine has nothing left once it reported again.
    await t.page.getByRole('link', { name: 'Runs' }).click();
    const runs = t.page.getByRole('table', { name: 'Update runs' });
    await runs.getByRole('row', { name: /Apply/ }).waitFor();
    await runs.getByRole('row', { name: /Dry run/ }).waitFor();
    await t.page.goto(`${t.baseUrl}/assets/${web.assetId}/updates`);
    await t.page.getByRole('button', { name: 'Check now' }).click();
    await expect.poll(() => t.page.getByTestId('updates-count').textContent()).toBe('0');
    await t.page.getByText('Up to date').waitFor();
  });

  it('shows a viewer the pages without any run control', async () => {
    const t = h();
    await t.signIn('viewer');
    await t.page.goto(`${t.baseUrl}/updates`);
    const table = t.page.getByRole('table', { name: 'Machines and their updates' });
    await table.getByRole('row', { name: /patch-db/ }).waitFor();
    expect(await t.page.getByRole('button', { name: 'New update run' }).count()).toBe(0);
    expect(await table.getByRole('button').count()).toBe(0);
    expect(await t.page.getByRole('link', { name: 'New run' }).count()).toBe(0);

    await t.page.goto(`${t.baseUrl}/updates/runs/new`);
    await t.page.getByText(/Your role can see the fleet.s updates but not start update runs/).waitFor();
    expect(await t.page.getByRole('button', { name: /Start dry run|Apply updates/ }).count()).toBe(0);

    await t.page.goto(`${t.baseUrl}/assets/${web.assetId}/updates`);
    await t.page.getByRole('region', { name: 'Updates of patch-web' }).getByText('Last patched').waitFor();
    for (const name of ['Dry run', 'Apply', 'Check now'])
      expect(await t.page.getByRole('button', { name, exact: true }).count()).toBe(0);

    await t.page.goto(`${t.baseUrl}/updates/runs`);
    await t.page.getByRole('table', { name: 'Update runs' }).getByRole('link').first().click();
    await t.page.getByTestId('update-run-status').waitFor();
    expect(await t.page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
  });

  it('fits a phone’s width', async () => {
    const t = h();
    await t.signIn('owner');
    const runs = await t.api('GET', '/api/v2/update-runs');
    const runId = (runs.json.data as { id: string }[])[0]?.id ?? '';
    await t.page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const path of [
        '/updates',
        '/updates/runs',
        '/updates/runs/new',
        `/updates/runs/${runId}`,
        `/assets/${web.assetId}/updates`,
      ]) {
        await t.page.goto(`${t.baseUrl}${path}`);
        await t.page.getByRole('heading', { level: 1 }).first().waitFor();
        await t.page.locator('.loading').first().waitFor({ state: 'detached' });
        expect({
          path,
          width: await t.page.evaluate<number>('document.documentElement.scrollWidth'),
        }).toEqual({
          path,
          width: 390,
        });
        expect(await accessibilityProblems(t.page, `${path} at 390 px`)).toEqual([]);
      }
    } finally {
      await t.page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
