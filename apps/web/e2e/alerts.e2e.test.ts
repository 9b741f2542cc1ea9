/**
 * Alerts in chromium against a real hub (rules evaluated every second here): a rule made in the console for
 * a fake agent; the agent stopped fires an alert that shows, is acknowledged and silenced there, counts on
 * the dashboard, and opens an incident resolved there; a viewer sees all of it and no button.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Alert, AlertRule } from '@svc/protocol';
import { useConsole } from './harness.js';
import { connectFakeAgent, type EnrolledFake } from './fleet.js';

const h = useConsole({ env: { SVC_ALERT_INTERVAL_S: '1' } });
const fakes: EnrolledFake[] = [];

afterAll(() => {
  for (const fake of fakes) fake.agent.close();
});

/** Polls the API until `done` holds; bounded. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what}: not reached in time`);
}

describe('alerts and incidents', () => {
  it('makes a rule in the console; an agent stopped fires an alert, acknowledged and counted there', async () => {
    const t = h();
    const fake = await connectFakeAgent(t, 'flaky-box', {});
    fakes.push(fake);
    await t.signIn('owner');

    await t.page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await t.page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
    await t.page.getByRole('link', { name: 'Rules', exact: true }).click();
    await t.page.getByText('No alert rules yet').waitFor();
    await t.page.getByRole('button', { name: 'New rule' }).click();
    await t.page.getByLabel('Name').fill('agent gone');
    await t.page.getByLabel('Condition').selectOption('cpu');
    await t.page.getByLabel('Threshold (%)').fill('150');
    await t.page.getByRole('button', { name: 'Create rule' }).click();
    await t.page
      .getByText(/threshold_percent/)
      .first()
      .waitFor();

    await t.page.getByLabel('Condition').selectOption('offline');
    await t.page.getByLabel('For at least (minutes)').fill('0');
    await t.page.getByLabel('Severity').selectOption('critical');
    await t.page.getByRole('combobox', { name: 'Watch an asset' }).fill('flaky-box');
    await t.page.getByRole('option', { name: 'flaky-box', exact: true }).click();
    await t.page.getByRole('list', { name: 'Watched assets' }).getByText(fake.assetId).waitFor();
    await t.page.getByRole('button', { name: 'Create rule' }).click();
    const rules = t.page.getByRole('table', { name: 'Alert rules' });
    await rules
      .getByRole('row', { name: /agent gone/ })
      .getByText('offline')
      .waitFor();
    const made = (await t.api('GET', '/api/v2/alerts/rules')).json.data as AlertRule[];
    expect(made).toMatchObject([
      { name: 'agent gone', kind: 'offline', severity: 'critical', asset_ids: [fake.assetId] },
    ]);
    await t.screenshot('alert-rules');

    fake.agent.close();
    await until(async () => {
      const res = await t.api('GET', '/api/v2/alerts?status=active');
      return (res.json.meta?.total ?? 0) > 0;
    }, 'the alert firing');
    const [alert] = (await t.api('GET', '/api/v2/alerts')).json.data as Alert[];
    if (!alert) throw new Error('no alert');

    await t.page.goto(`${t.baseUrl}/dashboard`);
    // The count shows '—' until the dashboard's query answers.
    await expect.poll(() => t.page.getByTestId('count-alerts').textContent(), { timeout: 15_000 }).toBe('1');

    await t.page.goto(`${t.baseUrl}/alerts`);
    const row = t.page.locator(`tr[data-alert-id="${alert.id}"]`);
    await row.getByText('offline', { exact: false }).first().waitFor();
    expect(await row.locator('.severity-badge').textContent()).toBe('critical');
    expect(await row.locator('.alert-status').textContent()).toBe('firing');
    await t.screenshot('alerts');
    await row.getByRole('button', { name: 'Acknowledge' }).click();
    await row.locator('.alert-status', { hasText: 'acknowledged' }).waitFor();
    const acked = (await t.api('GET', '/api/v2/alerts')).json.data as Alert[];
    expect(acked[0]).toMatchObject({ id: alert.id, status: 'acknowledged' });

    await row.getByRole('button', { name: 'Silence…' }).click();
    await t.page.getByLabel('Silence for').selectOption('240');
    await t.page.getByRole('dialog').getByRole('button', { name: 'Silence', exact: true }).click();
    await row.locator('.alert-status', { hasText: 'silenced' }).waitFor();
    // Still active (not resolved): the dashboard keeps counting it.
    await t.page.goto(`${t.baseUrl}/dashboard`);
    await t.page.getByTestId('count-alerts').filter({ hasText: '1' }).waitFor();
    expect(t.cspViolations).toEqual([]);
  }, 90_000);

  it('lists the incident the alert opened and resolves it', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.getByRole('link', { name: 'Incidents', exact: true }).click();
    const table = t.page.getByRole('table', { name: 'Incidents' });
    // The incident's own link, not its "Review flaky-box: offline" one.
    await table.getByRole('link', { name: /^flaky-box: offline/ }).waitFor();
    await t.screenshot('incidents');
    await table.getByRole('button', { name: 'Resolve' }).click();
    await t.page
      .getByRole('dialog', { name: 'Resolve incident' })
      .getByRole('button', { name: 'Resolve' })
      .click();
    await t.page.getByText('No incidents').waitFor();
    const resolved = await t.api('GET', '/api/v2/incidents?status=resolved');
    expect(resolved.json.meta?.total).toBe(1);
  }, 60_000);

  it('shows a viewer alerts, rules and incidents with no button to change them', async () => {
    const t = h();
    await t.signIn('viewer');
    await t.page.goto(`${t.baseUrl}/alerts?status=all`);
    await t.page.getByRole('table', { name: 'Alerts' }).waitFor();
    for (const name of ['Acknowledge', 'Silence…']) {
      expect(await t.page.getByRole('button', { name }).count()).toBe(0);
    }
    await t.page.goto(`${t.baseUrl}/alerts/rules`);
    await t.page.getByRole('table', { name: 'Alert rules' }).waitFor();
    for (const name of ['New rule', 'Edit', 'Delete']) {
      expect(await t.page.getByRole('button', { name }).count()).toBe(0);
    }
    await t.page.goto(`${t.baseUrl}/incidents?status=all`);
    await t.page.getByRole('table', { name: 'Incidents' }).waitFor();
    expect(await t.page.getByRole('button', { name: 'Resolve' }).count()).toBe(0);
  }, 60_000);
  it('makes a service rule in the console; the agent reporting the service failed fires it', async () => {
    const t = h();
    const fake = await connectFakeAgent(t, 'web-box', {
      'services.list': () => ({
        manager: 'systemd' as const,
        services: [
          {
            name: 'nginx.service',
            description: 'web server',
            load_state: 'loaded',
            active_state: 'failed',
            sub_state: 'failed',
            enabled: true,
          },
        ],
      }),
    });
    fakes.push(fake);
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/alerts/rules`);
    await t.page.getByRole('table', { name: 'Alert rules' }).waitFor();
    await t.page.getByRole('button', { name: 'New rule' }).click();
    await t.page.getByLabel('Name').fill('web down');
    await t.page.getByLabel('Condition').selectOption('service');
    expect(await t.page.getByLabel('Threshold (%)').count()).toBe(0);
    await t.page.getByLabel('Service name').fill('-H');
    await t.page.getByRole('button', { name: 'Create rule' }).click();
    await t.page.locator('#rule-service-problem').waitFor();
    await t.page.getByLabel('Service name').fill('nginx');
    await t.page.getByLabel('For at least (minutes)').fill('0');
    await t.page.getByRole('combobox', { name: 'Watch an asset' }).fill('web-box');
    await t.page.getByRole('option', { name: 'web-box', exact: true }).click();
    await t.page.getByRole('button', { name: 'Create rule' }).click();
    await t.page
      .getByRole('table', { name: 'Alert rules' })
      .getByRole('row', { name: /web down/ })
      .getByText('service nginx not active')
      .waitFor();
    const made = (await t.api('GET', '/api/v2/alerts/rules')).json.data as AlertRule[];
    expect(made.find((r) => r.name === 'web down')).toMatchObject({
      kind: 'service',
      service: 'nginx',
      threshold_percent: null,
      asset_ids: [fake.assetId],
    });

    await until(async () => {
      const res = await t.api('GET', `/api/v2/alerts?status=active&asset=${fake.assetId}`);
      return (res.json.meta?.total ?? 0) > 0;
    }, 'the service alert firing');
    await t.page.goto(`${t.baseUrl}/alerts`);
    await t.page.getByText('service nginx failed').first().waitFor();
    expect(t.cspViolations).toEqual([]);
  }, 60_000);
});
