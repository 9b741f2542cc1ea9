/**
 * The console on the live event feed, in chromium against a real hub: the dashboard says it is live, shows
 * an asset made through the API in its activity panel and its counts without a reload, and an open asset
 * page takes a rename made through the API at once (polling is a minute apart while the feed is live).
 */
import { describe, expect, it } from 'vitest';
import { useConsole } from './harness.js';

const h = useConsole();

/** Well under the one-minute polling of a live page: what shows in this time came through the feed. */
const liveMs = 5_000;

describe('the console updates live from the event stream', () => {
  it('the dashboard shows an asset created through the API without a reload', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await t.page.getByTestId('live-state').getByText('Live').waitFor();
    const before = Number(await t.page.getByTestId('count-assets').textContent());

    const made = await t.api('POST', '/api/v2/assets', { name: 'arrived-live', platform: 'other' });
    expect(made.status).toBe(201);

    await t.page
      .getByRole('list', { name: 'Live events' })
      .getByText('asset.created · arrived-live')
      .waitFor({ timeout: liveMs });
    await expect
      .poll(() => t.page.getByTestId('count-assets').textContent(), { timeout: liveMs })
      .toBe(String(before + 1));
    await t.screenshot('dashboard-live');
    expect(t.cspViolations).toEqual([]);
  });

  it('an open asset page shows a rename made through the API at once', async () => {
    const t = h();
    const made = await t.api('POST', '/api/v2/assets', { name: 'before-rename', platform: 'other' });
    const { id } = made.json.data as { id: string };
    await t.signIn('owner');
    // The feed lives in the shell: seen live on the dashboard, it stays open through in-app navigation.
    await t.page.getByTestId('live-state').getByText('Live').waitFor();
    await t.page.getByRole('link', { name: 'Assets', exact: true }).first().click();
    await t.page.getByRole('link', { name: 'before-rename' }).click();
    await t.page.getByRole('heading', { name: 'before-rename' }).waitFor();

    const renamed = await t.api('PUT', `/api/v2/assets/${id}`, { name: 'after-rename' });
    expect(renamed.status).toBe(200);

    await t.page.getByRole('heading', { name: 'after-rename' }).waitFor({ timeout: liveMs });
    expect(t.cspViolations).toEqual([]);
  });
});
