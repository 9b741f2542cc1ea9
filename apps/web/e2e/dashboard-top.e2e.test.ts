/**
 * The dashboard's busiest assets are the hub's fleet-wide top-N (`/metrics/top`, docs/metrics.md): with more
 * reporting assets than the table shows, the busiest ones are there even when their names sort last, in the
 * hub's order, for the metric chosen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetricSample, MetricsTop } from '@svc/protocol';
import { connectFakeAgent, type EnrolledFake } from './fleet.js';
import { useConsole } from './harness.js';

const h = useConsole();
const fakes: EnrolledFake[] = [];
const count = 11;

function sampleOf(i: number): MetricSample {
  const gib = 1024 ** 3;
  return {
    ts: new Date().toISOString(),
    // CPU rises with the name, memory falls with it: each ranking picks other assets.
    cpu_percent: 10 + i * 7,
    memory_used_bytes: (15 - i) * gib,
    memory_total_bytes: 16 * gib,
    disk_used_bytes: 100 * gib,
    disk_total_bytes: 400 * gib,
    load1: 1,
    net_rx_bytes: 0,
    net_tx_bytes: 0,
  };
}

beforeAll(async () => {
  for (let i = 0; i < count; i++) {
    const fake = await connectFakeAgent(h(), `top-node-${String(i).padStart(2, '0')}`, {});
    fake.agent.metrics([sampleOf(i)]);
    fakes.push(fake);
  }
}, 120_000);

afterAll(() => {
  for (const fake of fakes) fake.agent.close();
});

async function hubTop(metric: string): Promise<string[]> {
  const res = await h().api('GET', `/api/v2/metrics/top?metric=${metric}&limit=8`);
  expect(res.status, res.text).toBe(200);
  return (res.json.data as MetricsTop).assets.map((e) => e.name);
}

describe('the dashboard on the fleet-wide top-N', () => {
  it("shows the hub's busiest assets in its order, by CPU and then by memory", async () => {
    const t = h();
    // The store writes in batches: wait until every asset's sample is ranked.
    await expect
      .poll(
        async () =>
          ((await t.api('GET', '/api/v2/metrics/top?metric=cpu')).json.data as MetricsTop).assets_reporting,
        {
          timeout: 20_000,
        },
      )
      .toBeGreaterThanOrEqual(count);
    const byCpu = await hubTop('cpu');
    expect(byCpu.slice(0, 3)).toEqual(['top-node-10', 'top-node-09', 'top-node-08']);

    await t.signIn('owner');
    const panel = t.page.locator('section.panel', {
      has: t.page.getByRole('heading', { name: 'Busiest online assets' }),
    });
    const names = () => panel.getByTestId('busiest-row').getByRole('rowheader').allTextContents();
    await panel.getByRole('link', { name: 'top-node-10' }).waitFor();
    expect(await names()).toEqual(byCpu);
    await t.screenshot('dashboard-busiest');

    const byMemory = await hubTop('memory');
    expect(byMemory[0]).toBe('top-node-00');
    await panel.getByLabel('Rank by').selectOption('memory');
    await panel.getByRole('link', { name: 'top-node-00' }).waitFor();
    await expect.poll(names, { timeout: 10_000 }).toEqual(byMemory);
  });
});
