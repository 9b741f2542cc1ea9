/**
 * Prometheus in chromium against a real hub (Admin → Prometheus): the service discovery URL shown, the
 * default exporter port and a group's port saved, and remote write set up through the form to Debian's real `prometheus` (its
 * remote-write receiver), its status then saying it keeps up; the hub's refusal of a bad URL shown under
 * the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrometheusSettings } from '@svc/protocol';
import { startPrometheus, type PrometheusServer } from '@svc/testkit';
import { useConsole } from './harness.js';

const h = useConsole({ env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true', SVC_OUTBOUND_ALLOW_INSECURE: 'true' } });

let prometheus: PrometheusServer;

beforeAll(async () => {
  prometheus = await startPrometheus({ remoteWriteReceiver: true });
});

afterAll(async () => {
  await prometheus.stop();
});

describe('the Prometheus page', () => {
  it('shows the discovery URL and saves the default exporter port and a group port', async () => {
    const t = h();
    await t.signIn('owner');
    const group = await t.api('POST', '/api/v2/groups', { name: 'databases' });
    expect(group.status).toBe(201);
    const groupId = (group.json.data as { id: string }).id;
    await t.page.goto(`${t.baseUrl}/admin/prometheus`);
    await t.page.getByRole('heading', { name: 'Service discovery' }).waitFor();
    const url = await t.page.getByLabel('Service discovery URL').textContent();
    expect(url).toBe(`${t.baseUrl}/api/v2/integrations/prometheus/targets`);
    await t.page.getByLabel('Default exporter port').fill('9101');
    await t.page.getByRole('button', { name: 'Add a group port' }).click();
    await t.page.getByLabel('Group 1', { exact: true }).selectOption({ label: 'databases' });
    await t.page.getByLabel('Port of group 1').fill('9187');
    await t.page.getByRole('button', { name: 'Save port' }).click();
    await t.page.getByText('Targets now default to port 9101.').waitFor();
    const res = await t.api('GET', '/api/v2/integrations/prometheus');
    expect((res.json.data as PrometheusSettings).exporter).toEqual({
      default_port: 9101,
      group_ports: [{ group_id: groupId, port: 9187 }],
    });
  });

  it('shows the refusal of a bad URL, then sets up remote write and shows it keeping up', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/admin/prometheus`);
    await t.page.getByRole('heading', { name: 'Set up remote write' }).waitFor();
    await t.page.getByLabel('Receiver URL').fill('ftp://example.com/write');
    await t.page.getByRole('button', { name: 'Save remote write' }).click();
    await t.page.getByText(/egress guard/).waitFor();

    await t.page.getByLabel('Receiver URL').fill(`${prometheus.url}/api/v1/write`);
    await t.page.getByLabel('Authentication').selectOption('bearer');
    await t.page.getByLabel('Token').fill('e2e-token');
    await t.page.getByRole('button', { name: 'Save remote write' }).click();
    await t.page.getByText('Remote write saved.').waitFor();
    await t.page.getByLabel('Token').waitFor();
    expect(await t.page.getByLabel('Token').inputValue()).toBe('');
    await t.page.getByText('Stored; leave empty to keep it').waitFor();
    // The sender's first pass (every 5 s), then the page's next refresh (every 10 s).
    const status = t.page.getByRole('definition').filter({ hasText: /^Yes$/ });
    await status.waitFor({ timeout: 25_000 });
    await t.screenshot('prometheus');
  }, 40_000);
});
