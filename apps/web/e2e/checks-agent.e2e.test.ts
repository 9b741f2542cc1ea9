/**
 * A service check run from an agent (decision 0084), in chromium against a real hub with its real local agent
 * and no loopback opt-in: the hub's egress guard would refuse 127.0.0.1, the agent reaches it on its own
 * network. Created in the console with "Run from" an agent, it goes up; the listener stopped, it goes down.
 * A check from an agent that cannot run checks (an older one) shows as not run, with why, in its history.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceCheck } from '@svc/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { accessibilityProblems } from './axe.js';
import { connectFakeAgent, localAsset } from './fleet.js';
import { openNav, useConsole } from './harness.js';

const h = useConsole({ localAgent: true });

let server: Server | null = null;

function stop(s: Server): Promise<void> {
  s.closeAllConnections();
  return new Promise((resolve) =>
    s.close(() => {
      resolve();
    }),
  );
}

afterAll(async () => {
  if (server) await stop(server);
});

describe('a check run from an agent', () => {
  it('is created with "Run from" an agent, goes up, and goes down when its service stops', async () => {
    const t = h();
    const local = await localAsset(t);
    server = createServer((_req, res) => res.writeHead(200).end('private ok'));
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;

    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/dashboard`);
    await openNav(t.page, 'Checks');
    await t.page.getByRole('button', { name: 'New check' }).click();
    await t.page.getByLabel('Name').fill('private');
    await t.page.getByLabel('Target').fill(url);
    await t.page.getByLabel('Expected text in the body').fill('private ok');
    await t.page.getByLabel('An agent, on its own network').check();
    await t.page.getByRole('combobox', { name: 'Agent’s asset' }).fill(local.name);
    await t.page.getByRole('option', { name: local.name, exact: true }).click();
    await t.page.getByRole('list', { name: 'Agent that runs the check' }).getByText(local.name).waitFor();
    expect(await accessibilityProblems(t.page, 'check form, run from an agent')).toEqual([]);
    await t.screenshot('checks-run-from');
    await t.page.getByRole('button', { name: 'Create check' }).click();

    const row = t.page.getByRole('table', { name: 'Service checks' }).getByRole('row', { name: /private/ });
    await row.getByText(`agent of ${local.name}`).waitFor();
    const listed = await t.api('GET', '/api/v2/checks');
    expect((listed.json.data as ServiceCheck[]).map((c) => [c.name, c.run_from_asset_id])).toEqual([
      ['private', local.id],
    ]);

    await row.getByRole('button', { name: 'Run now: private' }).click();
    await row
      .getByRole('status')
      .getByText(/^Up in \d+ ms$/)
      .waitFor();

    await stop(server);
    server = null;
    await row.getByRole('button', { name: 'Run now: private' }).click();
    await row
      .getByRole('status')
      .getByText(/^Down: .*ECONNREFUSED/)
      .waitFor();
    await row.getByText('down (1)').waitFor();
    expect(await accessibilityProblems(t.page, 'checks page with a check from an agent')).toEqual([]);
    // Run now scrolled the table to its last column: back to the name for the picture.
    await row.getByRole('rowheader', { name: 'private' }).scrollIntoViewIfNeeded();
    await t.screenshot('checks-from-agent');
    expect(t.cspViolations).toEqual([]);
  }, 120_000);

  it('shows a run its agent could not make as not run, with the reason, not as down', async () => {
    const t = h();
    await t.signIn('owner');
    const older = await connectFakeAgent(t, 'older-agent', {}, { capabilities: ['exec'] });
    const made = await t.api('POST', '/api/v2/checks', {
      name: 'behind-older',
      kind: 'tcp',
      target: '10.0.0.7:22',
      run_from_asset_id: older.assetId,
    });
    expect(made.status, made.text).toBe(201);
    await t.page.goto(`${t.baseUrl}/checks`);
    const row = t.page
      .getByRole('table', { name: 'Service checks' })
      .getByRole('row', { name: /behind-older/ });
    await row.getByText('agent of older-agent').waitFor();
    await row.getByRole('button', { name: 'Run now: behind-older' }).click();
    await row
      .getByRole('status')
      .getByText(/^Unknown: not run: .*no capability checks/)
      .waitFor();
    await row.getByText(/^unknown: not run:/).waitFor();
    await row.getByRole('button', { name: 'History of behind-older' }).click();
    const runs = t.page.getByRole('table', { name: 'Runs of behind-older' });
    await runs.getByRole('cell', { name: 'not run', exact: true }).waitFor();
    expect(await accessibilityProblems(t.page, 'history with a run not made')).toEqual([]);
    older.agent.close();
  }, 60_000);
});
