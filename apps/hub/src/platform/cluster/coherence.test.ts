/**
 * Two hub processes on one PostgreSQL schema and one (in-memory) cluster network, as decision 0040 has them:
 * a key revoked on one is refused on the other within a second, a policy changed on one is enforced on the
 * other, a webhook made on one is served by the other, and pending deliveries are sent once: never taken from
 * a live process, taken over once when its node is gone. Needs SVC_TEST_DATABASE_URL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookCreated } from '@svc/protocol';
import type { TestHub, TestHubOptions } from '@svc/testkit';
import type { Resolver } from '../outbound/guarded-lookup.js';
import { startReceiver, until, type Receiver } from '../../testing/webhook-receiver.js';
import { sharedPostgresUrl } from '../../testing/shared-database.js';
import { closeProcesses, startTwoProcesses } from '../../testing/two-processes.js';

const url = sharedPostgresUrl();

const resolver: Resolver = (host) =>
  host === 'hooks.test'
    ? Promise.resolve([{ address: '127.0.0.1', family: 4 }])
    : Promise.reject(new Error(`ENOTFOUND ${host}`));

/** Polls until `check` holds, at most `deadlineMs`; resolves with how long it took. */
async function within(deadlineMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < 1000; i++) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > deadlineMs) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`not within ${String(deadlineMs)} ms`);
}

describe.skipIf(url === null)('two hub processes on one database (postgres)', () => {
  const hubs: TestHub[] = [];
  let receiver: Receiver | null = null;

  afterEach(async () => {
    await closeProcesses(hubs);
    await receiver?.close();
    receiver = null;
  });

  const twoProcesses = (extra: TestHubOptions = {}) => startTwoProcesses(url ?? '', hubs, extra);

  it('refuses on one process, within a second, a key revoked on the other', async () => {
    const { a, b } = await twoProcesses();
    const key = await a.createKey({ role: 'operator', scopes: ['assets:read'] });
    // B verifies the key and keeps it in its cache.
    expect((await b.request('GET', '/api/v2/assets', { key: key.raw_key })).status).toBe(200);
    expect((await b.request('GET', '/api/v2/assets', { key: key.raw_key })).status).toBe(200);

    expect((await a.request('DELETE', `/api/v2/keys/${key.id}`)).status).toBe(200);
    const took = await within(1000, async () => {
      return (await b.request('GET', '/api/v2/assets', { key: key.raw_key })).status === 401;
    });
    expect(took).toBeLessThan(1000);
  });

  it('gives each lease to one of the two processes', async () => {
    const { a, b } = await twoProcesses();
    for (const name of ['alerts', 'connectors', 'retention', 'metrics_retention', 'metrics_sweep']) {
      const holders = [a, b].filter((hub) => hub.hub.cluster.leases.holds(name));
      expect(holders, name).toHaveLength(1);
    }
  });

  it('holds requests spread over two processes to one rate limit', async () => {
    const { a, b } = await twoProcesses({ rateLimit: { enabled: true, perIpPerMinute: 30 } });
    const statuses: number[] = [];
    let retryAfter: string | undefined;
    const started = performance.now();
    for (let i = 0; i < 80; i++) {
      const res = await (i % 2 === 0 ? a : b).request('GET', '/api/v2/assets');
      statuses.push(res.status);
      if (res.status === 429) retryAfter ??= String(res.headers['retry-after']);
    }
    const allowed = statuses.filter((s) => s === 200).length;
    // 30 a minute for the address across both: the slack is N - 1, plus what the test's own seconds refilled.
    const refilled = Math.ceil(((performance.now() - started) / 60_000) * 30);
    // A fast burst's first second is shared conservatively (decision 0040): never starved. Limits of each
    // process's own would let 60 through; the shared one holds near 30. Its slack grows when the exchange's
    // timing drifts (a loaded machine: a peer spending more in an interval than in its last report).
    expect(allowed).toBeGreaterThanOrEqual(15);
    expect(allowed).toBeLessThanOrEqual(Math.ceil((30 + 1 + refilled) * 1.2));
    expect(statuses.filter((s) => s === 429).length).toBe(80 - allowed);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it('enforces on one process a policy changed through the other', async () => {
    const { a, b } = await twoProcesses();
    const asset = await a.createAsset();
    const before = await b.request('POST', `/api/v2/assets/${asset.id}/sessions`, {
      body: { kind: 'terminal' },
    });
    expect(before.json.error).not.toBe('policy_disabled');

    const patch = await a.request('PATCH', '/api/settings/runtime', {
      body: { 'policy.interactive_enabled': false },
    });
    expect(patch.status, patch.text).toBe(200);
    await within(1000, async () => {
      const res = await b.request('POST', `/api/v2/assets/${asset.id}/sessions`, {
        body: { kind: 'terminal' },
      });
      return res.json.error === 'policy_disabled';
    });
    expect(b.hub.settings.policy('interactive')).toBe(false);

    await a.request('PATCH', '/api/settings/runtime', { body: { 'policy.interactive_enabled': null } });
    await within(1000, () => Promise.resolve(b.hub.settings.policy('interactive')));
  });

  it('delivers pending webhooks once: never taken from a live process, taken over once when it is gone', async () => {
    receiver = await startReceiver(['hooks.test']);
    const live = receiver;
    // The receiver fails at first: deliveries stay pending on the process that queued them (A).
    live.on('/in', (answer) => {
      answer.statusCode = 503;
      answer.end('down');
    });
    const { a, b, goneToB } = await twoProcesses({
      outbound: { resolver, ca: live.ca },
      webhookDelivery: { retryDelaysMs: [120_000, 50, 50] },
    });
    const res = await a.request('POST', '/api/v2/webhooks', {
      body: { name: 'once', url: `https://hooks.test:${String(live.port)}/in`, events: ['group.created'] },
    });
    expect(res.status, res.text).toBe(201);
    const hook = res.json.data as WebhookCreated;
    for (let i = 0; i < 3; i++)
      a.hub.events.publish('group.created', {
        asset_ids: [],
        group_id: `grp_${String(i)}`,
        name: `g${String(i)}`,
      });
    await until(() => live.hits('/in').length === 3);
    const pending = () => b.hub.database.db.selectFrom('webhook_pending').selectAll().orderBy('id').execute();
    await until(async () =>
      (await pending()).every((row) => row.attempts === 1 && row.claimed_by === 'node_a'),
    );

    live.on('/in', (answer) => answer.end('ok'));
    // B starts its queue (as a new process would) and sweeps: A is live and holds them, B takes none.
    await b.hub.services.webhooks.onNodeGone('node_unknown');
    expect((await pending()).map((row) => row.claimed_by)).toEqual(['node_a', 'node_a', 'node_a']);

    // A is reported gone (while its retries wait two minutes away): B takes every row over, and sends each once.
    b.clock.advance(121_000);
    await goneToB('node_a');
    await until(() => live.hits('/in').length === 6);
    await until(async () => (await pending()).length === 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ids = live.hits('/in').map((hit) => String(hit.headers['x-svc-delivery']));
    expect(ids).toHaveLength(6);
    // Each delivery id twice: the failed first attempt (A) and the delivery (B); never a third time.
    expect(new Set(ids).size).toBe(3);
    const records = await b.hub.database.db
      .selectFrom('webhook_deliveries')
      .select(['outcome'])
      .where('webhook_id', '=', hook.id)
      .execute();
    expect(records).toEqual([{ outcome: 'delivered' }, { outcome: 'delivered' }, { outcome: 'delivered' }]);
  });

  it('delivers an event caused on one process right after a webhook was made on the other', async () => {
    receiver = await startReceiver(['hooks.test']);
    const live = receiver;
    live.on('/in', (answer) => answer.end('ok'));
    const { a, b } = await twoProcesses({ outbound: { resolver, ca: live.ca } });
    // B has loaded its (empty) set of webhooks: it learns of the new one only from A.
    expect((await b.request('POST', '/api/v2/groups', { body: { name: 'before' } })).status).toBe(201);
    const res = await a.request('POST', '/api/v2/webhooks', {
      body: { name: 'at once', url: `https://hooks.test:${String(live.port)}/in`, events: ['group.created'] },
    });
    expect(res.status).toBe(201);
    expect((await b.request('POST', '/api/v2/groups', { body: { name: 'right after' } })).status).toBe(201);
    await until(() => live.hits('/in').some((hit) => hit.body.includes('right after')));
    expect(live.hits('/in').filter((hit) => hit.body.includes('right after'))).toHaveLength(1);
  });

  it('takes over orphaned deliveries once when two processes race for them', async () => {
    receiver = await startReceiver(['hooks.test']);
    const live = receiver;
    live.on('/in', (answer) => answer.end('ok'));
    const { a, b } = await twoProcesses({ outbound: { resolver, ca: live.ca } });
    const res = await a.request('POST', '/api/v2/webhooks', {
      body: { name: 'race', url: `https://hooks.test:${String(live.port)}/in`, events: ['group.created'] },
    });
    const hook = res.json.data as WebhookCreated;
    // B learnt of the webhook through the invalidation: it is one of its targets.
    await within(1000, async () => (await b.request('GET', `/api/v2/webhooks/${hook.id}`)).status === 200);
    // Rows a process that died left behind (never claimed, as before claims existed).
    const now = a.clock.now().toISOString();
    const rows = Array.from({ length: 20 }, (_, i) => {
      const id = `dlv_orphan${String(i).padStart(2, '0')}`;
      return {
        id,
        webhook_id: hook.id,
        event_id: `evt_orphan${String(i)}`,
        event_type: 'group.created',
        ts: now,
        body: JSON.stringify({ id, type: 'group.created', ts: now, data: {} }),
        attempts: 1,
        next_attempt_at: now,
        created_at: now,
        claimed_by: null,
        claim_expires_at: null,
      };
    });
    await a.hub.database.db.insertInto('webhook_pending').values(rows).execute();
    await Promise.all([
      a.hub.services.webhooks.onNodeGone('node_dead'),
      b.hub.services.webhooks.onNodeGone('node_dead'),
    ]);
    await until(() => live.hits('/in').length >= 20);
    await until(
      async () => (await a.hub.database.db.selectFrom('webhook_pending').selectAll().execute()).length === 0,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ids = live.hits('/in').map((hit) => String(hit.headers['x-svc-delivery']));
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
  });
});
