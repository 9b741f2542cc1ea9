/**
 * The hub status page's Processes section in chromium, against one real hub process on PostgreSQL that joins a
 * nats-server of this file's own (SVC_NATS_URL), so the test can take the bus away: the process lists itself as
 * "this process" with its lease and the bus connected; with NATS stopped the page says so and that requests
 * needing another process answer 503; with NATS back the notice is gone. (The embedded cluster of one, without
 * NATS, is covered by the hub's own tests: apps/hub/src/modules/hub/hub-status.test.ts.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubStatus } from '@svc/protocol';
import { createTestDatabase, startNatsServer, type OwnNatsServer, type TestDatabase } from '@svc/testkit';
import { accessibilityProblems } from './axe.js';
import { useConsole, type ConsoleHarness } from './harness.js';

const postgresUrl = process.env.SVC_TEST_DATABASE_URL;
/** Filled in before the harness starts the hub (its `beforeAll` runs after this file's). */
const env: Record<string, string> = {};
let nats: OwnNatsServer | null = null;
let database: TestDatabase | null = null;
let natsDir: string | null = null;

beforeAll(async () => {
  if (!postgresUrl) return;
  natsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-web-nats-'));
  nats = await startNatsServer({ storeDir: natsDir });
  database = await createTestDatabase(postgresUrl, 'svc_web');
  Object.assign(env, {
    SVC_DATABASE_URL: database.url,
    SVC_NATS_URL: nats.url,
    SVC_SHUTDOWN_DRAIN_SECONDS: '0',
  });
}, 30_000);

// Registered before the harness's: runs after it stopped the hub. Dropping a database waits for a checkpoint,
// which takes seconds on a busy machine.
afterAll(async () => {
  await nats?.stop();
  await database?.drop();
  if (natsDir) fs.rmSync(natsDir, { recursive: true, force: true });
}, 60_000);

const h = useConsole({ env });

async function hubStatus(t: ConsoleHarness): Promise<HubStatus> {
  const answer = await t.api('GET', '/api/v2/hub/status');
  expect(answer.status, answer.text).toBe(200);
  return answer.json.data as HubStatus;
}

/** Polls the API (bounded) until the hub reports the bus in `state`. */
async function busIs(t: ConsoleHarness, state: 'up' | 'down'): Promise<void> {
  for (let attempt = 0; attempt < 60; attempt++) {
    if ((await hubStatus(t)).cluster.nats === state) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the hub did not report NATS ${state}`);
}

async function openStatus(t: ConsoleHarness) {
  await t.page.goto(`${t.baseUrl}/admin/status`);
  await t.page.getByRole('heading', { name: 'Hub status', level: 1 }).waitFor();
  const section = t.page.getByRole('region', { name: 'Processes' });
  await section.getByRole('table', { name: 'Hub processes' }).waitFor();
  return section;
}

describe.runIf(postgresUrl)('the hub processes on the status page', () => {
  it('lists this process with its lease and the bus connected', async () => {
    const t = h();
    await t.signIn('owner');
    const { cluster } = await hubStatus(t);

    const section = await openStatus(t);

    const rows = section.getByRole('table', { name: 'Hub processes' }).locator('tbody tr');
    expect(await rows.count()).toBe(1);
    const row = rows.first();
    expect(await row.getByRole('rowheader').textContent()).toBe(`${cluster.node_id}this process`);
    // Epoch 1, its start, its lease's end, no agent.
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells[0]).toBe('1');
    expect(cells[1]).not.toBe('—');
    expect(cells[2]).not.toMatch(/no lease/);
    expect(cells[3]).toBe('0');
    expect(await section.getByTestId('cluster-bus').textContent()).toBe('NATS connected');
    expect(await section.getByRole('alert').count()).toBe(0);
    await t.screenshot('admin-status-processes');
  }, 30_000);

  it('says NATS is down and what that means while it is, and not once it is back', async () => {
    const t = h();
    await nats?.stop();
    await busIs(t, 'down');

    const down = await openStatus(t);

    const notice = down.getByRole('alert');
    const text = await notice.textContent();
    expect(text).toMatch(
      /^NATS is down: .+; requests that need another process answer 503 until it is back\.$/,
    );
    expect(await down.getByTestId('cluster-bus').textContent()).toBe('NATS down');
    expect(await t.page.getByTestId('hub-health').textContent()).toBe('degraded');
    expect(await accessibilityProblems(t.page, 'the hub status with NATS down')).toEqual([]);

    await nats?.start();
    await busIs(t, 'up');
    const back = await openStatus(t);
    expect(await back.getByTestId('cluster-bus').textContent()).toBe('NATS connected');
    expect(await back.getByRole('alert').count()).toBe(0);
  }, 30_000);
});
