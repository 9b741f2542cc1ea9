/**
 * Service checks in chromium against a real hub (loopback opt-in set): a check of a local HTTP service that
 * answers and one of a local service that fails, both created in the console, run from it, their status and
 * history shown, the page accessible in both themes, and a check deleted after a confirmation.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityProblems } from './axe.js';
import { openNav, useConsole } from './harness.js';

const h = useConsole({ env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' } });

const servers: Server[] = [];
let healthyUrl = '';
let brokenUrl = '';

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;
}

beforeAll(async () => {
  healthyUrl = await listen((_req, res) => res.writeHead(200).end('all good'));
  brokenUrl = await listen((_req, res) => res.writeHead(500).end('broken'));
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  }
});

describe('the Checks page', () => {
  it('creates checks, runs them, shows up and down with their history, and deletes one', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/dashboard`);
    await openNav(t.page, 'Checks');
    await t.page.getByText('No service checks yet').waitFor();

    for (const [name, url] of [
      ['web', healthyUrl],
      ['api', brokenUrl],
    ] as const) {
      await t.page.getByRole('button', { name: 'New check' }).click();
      await t.page.getByLabel('Name').fill(name);
      await t.page.getByLabel('Target').fill(url);
      await t.page.getByLabel('Expected text in the body').fill(name === 'web' ? 'all good' : '');
      await t.page.getByRole('button', { name: 'Create check' }).click();
      await t.page
        .getByRole('table', { name: 'Service checks' })
        .getByRole('row', { name: new RegExp(name) })
        .waitFor();
    }

    const table = t.page.getByRole('table', { name: 'Service checks' });
    const web = table.getByRole('row', { name: /web/ });
    const api = table.getByRole('row', { name: /api/ });
    await web.getByRole('button', { name: 'Run now: web' }).click();
    await web
      .getByRole('status')
      .getByText(/^Up in \d+ ms$/)
      .waitFor();
    await api.getByRole('button', { name: 'Run now: api' }).click();
    await api.getByRole('status').getByText('Down: status 500, expected 2xx or 3xx').waitFor();
    await web.getByText('100.0 %').first().waitFor();
    await api.getByText('down (1)').waitFor();

    await api.getByRole('button', { name: 'History of api' }).click();
    const runs = t.page.getByRole('table', { name: 'Runs of api' });
    await runs.getByText('status 500, expected 2xx or 3xx').waitFor();
    expect(await accessibilityProblems(t.page, 'check history')).toEqual([]);
    await t.page.getByRole('button', { name: 'Close' }).click();

    expect(await accessibilityProblems(t.page, 'checks page')).toEqual([]);
    await t.screenshot('checks');

    await api.getByRole('button', { name: 'Delete api' }).click();
    await t.page.getByRole('button', { name: 'Delete check' }).click();
    await api.waitFor({ state: 'detached' });
    const listed = await t.api('GET', '/api/v2/checks');
    expect((listed.json.data as { name: string }[]).map((c) => c.name)).toEqual(['web']);
    expect(t.cspViolations).toEqual([]);
  }, 90_000);

  it("shows an asset's checks on its page, and makes new ones about it", async () => {
    const t = h();
    await t.signIn('owner');
    const created = await t.api('POST', '/api/v2/assets', { name: 'shop-host' });
    const assetId = (created.json.data as { id: string }).id;
    await t.page.goto(`${t.baseUrl}/assets/${assetId}/checks`);
    await t.page.getByText('No service checks yet').waitFor();
    await t.page.getByRole('button', { name: 'New check' }).click();
    await t.page.getByLabel('Name').fill('shop');
    await t.page.getByLabel('Target').fill(healthyUrl);
    await t.page.getByRole('button', { name: 'Create check' }).click();
    const row = t.page.getByRole('table', { name: 'Service checks' }).getByRole('row', { name: /shop/ });
    await row.getByRole('button', { name: 'Run now: shop' }).click();
    await row
      .getByRole('status')
      .getByText(/^Up in \d+ ms$/)
      .waitFor();
    const listed = await t.api('GET', `/api/v2/checks?asset=${assetId}`);
    expect(
      (listed.json.data as { name: string; asset_id: string }[]).map((c) => [c.name, c.asset_id]),
    ).toEqual([['shop', assetId]]);
    expect(await accessibilityProblems(t.page, 'asset checks tab')).toEqual([]);
  }, 60_000);

  it('shows the hub refusing a target under its field', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/checks`);
    await t.page.getByRole('button', { name: 'New check' }).click();
    await t.page.getByLabel('Name').fill('bad');
    await t.page.getByLabel('Target').fill('ftp://example.net/');
    await t.page.getByRole('button', { name: 'Create check' }).click();
    await t.page.locator('.field-error', { hasText: 'scheme must be http or https' }).waitFor();
  }, 60_000);
});
