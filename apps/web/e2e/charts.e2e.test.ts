/**
 * Charts that explain (issue 34, decision 0098): the dashboard's small charts and the asset page's charts
 * show their axes with units, the exact value and time of a known sample in a tooltip on hover and on
 * keyboard focus, a gap where the agent sent nothing, and their times in the viewer's zone or the hub's. The
 * browser runs in New York and the hub in Tokyo (14 h ahead of New York in winter, 13 h in summer), so the
 * two zones cannot be mistaken for each other. (Not Kolkata: Intl names it by its old ICU id, Asia/Calcutta.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetricSample } from '@svc/protocol';
import { accessibilityProblems } from './axe.js';
import { connectFakeAgent, type EnrolledFake } from './fleet.js';
import { useConsole, type ConsoleHarness } from './harness.js';

const hubZone = 'Asia/Tokyo';
const viewerZone = 'America/New_York';
const h = useConsole({ env: { TZ: hubZone }, timezoneId: viewerZone });

const gib = 1024 ** 3;
let fake: EnrolledFake;
let samples: MetricSample[];

/** One a minute over the last hour, none from 40 to 20 minutes ago: the agent was away. */
function hourWithHole(now: number): MetricSample[] {
  const minutes = Array.from({ length: 59 }, (_, i) => 59 - i).filter((m) => m < 20 || m > 40);
  return minutes.map((minute, i) => ({
    ts: new Date(Math.floor(now / 1000) * 1000 - minute * 60_000).toISOString(),
    cpu_percent: Math.round((20 + i * 1.7) * 10) / 10,
    memory_used_bytes: 4 * gib,
    memory_total_bytes: 16 * gib,
    disk_used_bytes: 100 * gib,
    disk_total_bytes: 400 * gib,
    load1: 0.5,
    net_rx_bytes: 1024,
    net_tx_bytes: 1024,
  }));
}

beforeAll(async () => {
  fake = await connectFakeAgent(h(), 'chart-01', {});
  samples = hourWithHole(Date.now());
  fake.agent.metrics(samples);
  // The store writes in batches: wait until the hub has them all.
  const from = new Date(Date.now() - 2 * 60 * 60_000).toISOString();
  for (let tries = 0; tries < 100; tries += 1) {
    const res = await h().api('GET', `/api/v2/assets/${fake.assetId}/metrics?from=${from}&limit=200`);
    const stored = (res.json.data as { samples: MetricSample[] } | undefined)?.samples.length ?? 0;
    if (stored === samples.length) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the hub did not store the samples');
}, 60_000);

afterAll(() => {
  fake.agent.close();
});

/** A sample's time as the tooltip heads it, formatted by the page's own Intl (the browser's ICU). */
async function fullTime(t: ConsoleHarness, ts: string, zone: string): Promise<string> {
  return t.page.evaluate(
    ([at, timeZone]) =>
      new Intl.DateTimeFormat(navigator.language, {
        dateStyle: 'medium',
        timeStyle: 'medium',
        timeZone,
      }).format(Date.parse(at)),
    [ts, zone] as const,
  );
}

/** Minutes since midnight of a clock label such as "3:42 PM". */
function minutesOf(clock: string): number {
  const match = /^(\d{1,2}):(\d{2})\s?(AM|PM)$/.exec(clock.trim());
  if (!match) throw new Error(`not a clock: ${clock}`);
  const [, hours = '0', minutes = '0', half] = match;
  return ((Number(hours) % 12) + (half === 'PM' ? 12 : 0)) * 60 + Number(minutes);
}

function newest(): MetricSample {
  const sample = samples.at(-1);
  if (!sample) throw new Error('no samples');
  return sample;
}

describe('charts that explain', () => {
  it('the dashboard’s small charts: units, exact values, the gap, and either zone', async () => {
    const t = h();
    await t.signIn('owner');
    const panel = t.page.locator('section.panel', {
      has: t.page.getByRole('heading', { name: 'Busiest online assets' }),
    });
    const row = panel.getByTestId('busiest-row').filter({ hasText: 'chart-01' });
    const last = newest();
    const cpu = row.getByRole('cell').nth(0);
    const chart = cpu.getByRole('img', { name: `chart-01 CPU: last ${last.cpu_percent.toFixed(1)} %` });
    await chart.waitFor();

    // The value axis with its unit; the hour's start and end, the table's time axis, once under it.
    await cpu.getByText('100 %', { exact: true }).waitFor();
    await cpu.getByText('0 %', { exact: true }).waitFor();
    await panel.locator('tfoot td', { hasText: `(${viewerZone})` }).waitFor();
    const clocks = () => panel.locator('tfoot time').allTextContents();
    const viewerClocks = await clocks();
    expect(viewerClocks).toHaveLength(2);

    // Focus shows the newest sample's exact value and time; the left arrow the one before.
    await chart.focus();
    const tip = cpu.getByRole('tooltip');
    await expect.poll(() => tip.textContent()).toContain(`chart-01 CPU: ${last.cpu_percent.toFixed(1)} %`);
    const tipText = (await tip.textContent()) ?? '';
    expect(tipText).toContain(`${await fullTime(t, last.ts, viewerZone)} (${viewerZone})`);
    expect(tipText).toContain(`(${hubZone})`);
    const before = samples.at(-2);
    if (!before) throw new Error('no second sample');
    await t.page.keyboard.press('ArrowLeft');
    await expect.poll(() => tip.textContent()).toContain(`chart-01 CPU: ${before.cpu_percent.toFixed(1)} %`);
    await t.page.keyboard.press('Escape');

    // The 20 silent minutes are one hatched stretch, about a third of the way in, and say so on hover.
    const gap = cpu.getByTestId('chart-gap');
    expect(await gap.count()).toBe(1);
    const plot = await chart.boundingBox();
    const hole = await gap.boundingBox();
    if (!plot || !hole) throw new Error('the chart is not drawn');
    expect((hole.x - plot.x) / plot.width).toBeGreaterThan(0.25);
    expect((hole.x - plot.x) / plot.width).toBeLessThan(0.4);
    expect((hole.x + hole.width - plot.x) / plot.width).toBeGreaterThan(0.6);
    expect((hole.x + hole.width - plot.x) / plot.width).toBeLessThan(0.75);
    await t.page.mouse.move(hole.x + hole.width / 2, hole.y + hole.height / 2);
    await expect.poll(() => tip.textContent()).toContain('No samples, the agent was silent');

    // The hub's zone: the same hour, its clock 13 or 14 h ahead of New York's.
    await panel.getByRole('button', { name: `The hub’s (${hubZone})` }).click();
    await panel.getByRole('button', { name: `The hub’s (${hubZone})`, pressed: true }).waitFor();
    await panel.locator('tfoot td', { hasText: `(${hubZone})` }).waitFor();
    await expect.poll(clocks).not.toEqual(viewerClocks);
    const hubClocks = await clocks();
    const ahead = (minutesOf(hubClocks[1] ?? '') - minutesOf(viewerClocks[1] ?? '') + 24 * 60) % (24 * 60);
    expect([13 * 60, 14 * 60]).toContain(ahead);

    expect(await accessibilityProblems(t.page, 'dashboard with small charts')).toEqual([]);
    await t.screenshot('dashboard-charts');
    expect(t.cspViolations).toEqual([]);
  }, 90_000);

  it('the asset page’s charts: axes as text, the gap, the hub’s zone, the keyboard’s tooltip', async () => {
    const t = h();
    await t.signIn('owner');
    // The choice is kept: start from the viewer's zone.
    await t.page.goto(`${t.baseUrl}/assets/${fake.assetId}/metrics`);
    const switchZone = t.page.getByRole('group', { name: 'Time zone' });
    await switchZone.getByRole('button', { name: `Yours (${viewerZone})` }).click();
    const cpu = t.page.getByRole('figure').filter({ has: t.page.getByRole('heading', { name: 'CPU' }) });
    const chart = cpu.getByRole('img', { name: /^CPU: CPU: latest/ });
    await chart.waitFor();

    // Both axes' labels and titles are text: the value axis in % up to 100, the time axis in the zone shown.
    await cpu.locator('.chart-tick-y', { hasText: '100.0 %' }).waitFor();
    await cpu.locator('.chart-axis-title-y', { hasText: '%' }).waitFor();
    await cpu.locator('.chart-axis-title-x', { hasText: `Time (${viewerZone})` }).waitFor();
    await cpu.getByText(`Values in %, time in ${viewerZone}`).waitFor();
    const ticks = () => cpu.locator('.chart-tick-x').allTextContents();
    await expect.poll(async () => (await ticks()).length).toBeGreaterThan(1);
    const viewerTicks = await ticks();

    // The silent 20 minutes: one hatched stretch, named beside the chart.
    expect(await cpu.locator('.chart-gap').count()).toBe(1);
    await cpu.getByText(/One gap where the agent was silent/).waitFor();

    // The hub's zone: the axis and its title move to Tokyo's clock.
    await switchZone.getByRole('button', { name: `The hub’s (${hubZone})` }).click();
    await cpu.locator('.chart-axis-title-x', { hasText: `Time (${hubZone})` }).waitFor();
    await expect.poll(ticks).not.toEqual(viewerTicks);
    await cpu.getByText(`Values in %, time in ${hubZone}`).waitFor();

    // The keyboard: focus shows the newest sample, its exact value, its time in the hub's zone and the viewer's.
    const last = newest();
    await chart.focus();
    const tip = cpu.locator('.chart-tooltip');
    await expect.poll(() => tip.textContent()).toContain(`CPU: ${last.cpu_percent.toFixed(1)} %`);
    expect(await tip.textContent()).toContain(`${await fullTime(t, last.ts, hubZone)} (${hubZone})`);
    expect(await tip.textContent()).toContain(`(${viewerZone})`);
    await t.page.keyboard.press('Home');
    const first = samples[0];
    if (!first) throw new Error('no samples');
    await expect.poll(() => tip.textContent()).toContain(`CPU: ${first.cpu_percent.toFixed(1)} %`);

    expect(await accessibilityProblems(t.page, 'asset metrics in the hub’s zone')).toEqual([]);
    await t.screenshot('asset-metrics-hub-zone');
    expect(t.cspViolations).toEqual([]);
    await switchZone.getByRole('button', { name: `Yours (${viewerZone})` }).click();
  }, 90_000);

  it('the phone’s asset screen: the same small chart with its own time axis', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/m/assets/${encodeURIComponent(fake.assetId)}`);
    const section = t.page.getByRole('region', { name: 'Metrics (last hour)' });
    const last = newest();
    const chart = section.getByRole('img', { name: `CPU, last hour: last ${last.cpu_percent.toFixed(1)} %` });
    await chart.waitFor();
    await section.getByText('100 %', { exact: true }).waitFor();
    expect(await section.locator('.mini-chart-x time').count()).toBe(2);
    expect(await section.getByTestId('chart-gap').count()).toBe(1);
    await chart.focus();
    await expect
      .poll(() => section.getByRole('tooltip').textContent())
      .toContain(`CPU, last hour: ${last.cpu_percent.toFixed(1)} %`);
    expect(await accessibilityProblems(t.page, 'the phone’s asset screen')).toEqual([]);
  }, 60_000);
});
