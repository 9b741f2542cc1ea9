/**
 * Service checks run from a chosen agent (decision 0084), through the real gateway to FakeAgents: up and down
 * as the agent answers, "not run" (neither up nor down, no check.failed) when the agent is offline or lacks the
 * capability, and who may choose an agent: only a caller who may run commands on it.
 */
import { describe, expect, it } from 'vitest';
import {
  agentChannelPath,
  newId,
  type AgentRequestPayload,
  type AgentRequestResult,
  type ServiceCheck,
  type ServiceCheckResult,
} from '@svc/protocol';
import { databaseTargets, FakeAgent, provisionAgents, type TestHub } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import { systemOwnerContext } from '../../access/principal.js';
import type { HubEvent } from '../../platform/event-bus.js';

type Probe = AgentRequestResult<'check.run'>;
const up: Probe = { ok: true, latency_ms: 3, status_code: 200, error: null, cert_expires_at: null };
const down: Probe = { ...up, ok: false, status_code: 503, error: 'status 503, expected 2xx or 3xx' };
const privateService = 'http://10.20.30.40:8080/health';

async function runCheck(t: TestHub, id: string): Promise<ServiceCheckResult> {
  const res = await t.request('POST', `/api/v2/checks/${id}/run`);
  expect(res.status, res.text).toBe(200);
  return res.json.data as ServiceCheckResult;
}

async function readCheck(t: TestHub, id: string): Promise<ServiceCheck> {
  return (await t.request('GET', `/api/v2/checks/${id}`)).json.data as ServiceCheck;
}

describe.each(databaseTargets())('service checks run from an agent ($name)', ({ options }) => {
  const use = useTestHub({ ...options, listen: true });

  async function agents(t: TestHub, prefix: string, n: number) {
    const made = await provisionAgents(t.hub, n, prefix);
    const url = `ws://127.0.0.1:${String(t.servers?.httpPort)}${agentChannelPath}`;
    return { made, url };
  }

  it('sends check.run to the chosen agent and records its answer: up, then down', async () => {
    const t = use();
    const { made, url } = await agents(t, 'runner', 1);
    const asset = made[0]!;
    const asked: AgentRequestPayload<'check.run'>[] = [];
    let answer = up;
    const agent = new FakeAgent({
      url,
      credential: asset.credential,
      hello: { capabilities: ['exec', 'checks'] },
      handlers: {
        'check.run': (payload) => {
          asked.push(payload);
          return answer;
        },
      },
    });
    await agent.start();
    const events: HubEvent[] = [];
    t.hub.events.subscribe((e) => {
      events.push(e);
    });
    const created = await t.request('POST', '/api/v2/checks', {
      body: {
        name: 'private api',
        kind: 'http',
        target: privateService,
        run_from_asset_id: asset.assetId,
        expected_body: 'ok',
        timeout_seconds: 4,
      },
    });
    expect(created.status, created.text).toBe(201);
    const check = created.json.data as ServiceCheck;
    expect(check.run_from_asset_id).toBe(asset.assetId);

    const first = await runCheck(t, check.id);
    expect(first, first.error ?? '').toMatchObject({ ran: true, ok: true, status_code: 200 });
    expect(asked[0]).toEqual({
      kind: 'http',
      target: privateService,
      timeout_ms: 4000,
      tls_verify: true,
      expected_status: null,
      expected_body: 'ok',
    });
    expect(await readCheck(t, check.id)).toMatchObject({ status: 'up', uptime_24h: 1 });

    answer = down;
    expect(await runCheck(t, check.id)).toMatchObject({ ran: true, ok: false, error: down.error });
    expect(await readCheck(t, check.id)).toMatchObject({ status: 'down', consecutive_failures: 1 });
    expect(events.filter((e) => e.type === 'check.failed')).toHaveLength(1);
    agent.close();
  });

  it('an offline agent, or one without the capability, is "not run": unknown, not down, no alert event', async () => {
    const t = use();
    const { made, url } = await agents(t, 'absent', 2);
    const [gone, old] = made as [(typeof made)[0], (typeof made)[0]];
    const agent = new FakeAgent({
      url,
      credential: gone.credential,
      hello: { capabilities: ['exec', 'checks'] },
      handlers: { 'check.run': () => down },
    });
    await agent.start();
    const legacy = new FakeAgent({ url, credential: old.credential, hello: { capabilities: ['exec'] } });
    await legacy.start();
    const make = async (assetId: string) =>
      (
        await t.request('POST', '/api/v2/checks', {
          body: { name: 'lan', kind: 'tcp', target: '10.1.1.1:22', run_from_asset_id: assetId },
        })
      ).json.data as ServiceCheck;
    const check = await make(gone.assetId);
    expect(await runCheck(t, check.id)).toMatchObject({ ran: true, ok: false });
    const events: HubEvent[] = [];
    t.hub.events.subscribe((e) => {
      events.push(e);
    });

    agent.close();
    await expect.poll(() => t.hub.gateway.isConnected(gone.assetId)).toBe(false);
    const skipped = await runCheck(t, check.id);
    expect(skipped).toMatchObject({ ran: false, ok: false });
    expect(skipped.error).toMatch(/^not run: asset .* is offline \(last seen: /);
    expect(await readCheck(t, check.id)).toMatchObject({
      status: 'unknown',
      consecutive_failures: 1,
      last_error: skipped.error,
      uptime_24h: 0,
    });
    const history = await t.request('GET', `/api/v2/checks/${check.id}/results`);
    expect((history.json.data as ServiceCheckResult[]).map((r) => r.ran)).toEqual([false, true]);
    expect(events.filter((e) => e.type.startsWith('check.'))).toEqual([]);

    // The asset itself deleted: not run either, saying so.
    expect((await t.request('DELETE', `/api/v2/assets/${gone.assetId}`)).status).toBe(200);
    const orphan = await runCheck(t, check.id);
    expect(orphan).toMatchObject({ ran: false, ok: false });
    expect(orphan.error).toMatch(/whose agent runs this check, no longer exists/);

    const unable = await make(old.assetId);
    const refused = await runCheck(t, unable.id);
    expect(refused).toMatchObject({ ran: false, ok: false });
    expect(refused.error).toMatch(/does not run service checks \(no capability checks\)/);
    legacy.close();
  });

  it('choosing an agent takes what running a command there takes', async () => {
    const t = use();
    const { made } = await agents(t, 'authz', 3);
    const [mine, hidden, hubHost] = made as [(typeof made)[0], (typeof made)[0], (typeof made)[0]];
    await t.hub.services.assets.markHubHost(systemOwnerContext(), hubHost.assetId);
    const manual = await t.createAsset({ name: 'no-agent' });
    const body = (runFrom: string) => ({
      name: 'x',
      kind: 'tcp',
      target: '10.1.1.1:22',
      asset_id: mine.assetId,
      run_from_asset_id: runFrom,
    });
    const limited = await t.createKey({ role: 'operator', scopes: ['*'], allowed_assets: [mine.assetId] });
    const noExec = await t.createKey({ role: 'operator', scopes: ['checks:write', 'checks:read'] });
    const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });
    const operator = await t.createKey({ role: 'operator', scopes: ['*'] });
    const create = (key: string | undefined, runFrom: string) =>
      t.request('POST', '/api/v2/checks', { body: body(runFrom), ...(key ? { key } : {}) });

    const hiddenRes = await create(limited.raw_key, hidden.assetId);
    expect([hiddenRes.status, hiddenRes.json.message]).toEqual([
      404,
      `no asset ${hidden.assetId} (run_from_asset_id)`,
    ]);
    const unknownId = newId('asset');
    expect((await create(undefined, unknownId)).status).toBe(404);
    const manualRes = await create(undefined, manual.id);
    expect(manualRes.status).toBe(400);
    expect(manualRes.text).toMatch(/has no agent to run checks/);
    const scopeRes = await create(noExec.raw_key, mine.assetId);
    expect([scopeRes.status, scopeRes.json.error]).toEqual([403, 'insufficient_scope']);
    expect((await create(viewer.raw_key, mine.assetId)).status).toBe(403);
    const hostRes = await create(operator.raw_key, hubHost.assetId);
    expect([hostRes.status, hostRes.json.error]).toEqual([403, 'admin_required']);
    expect((await create(undefined, hubHost.assetId)).status).toBe(201);

    // A check about `mine` run from `hidden` (made by the owner) is not shown to a key that sees only `mine`:
    // its results would name the hidden asset.
    const elsewhere = await create(undefined, hidden.assetId);
    expect(elsewhere.status).toBe(201);
    const hiddenCheck = (elsewhere.json.data as ServiceCheck).id;
    const seen = await t.request('GET', '/api/v2/checks', { key: limited.raw_key });
    expect((seen.json.data as ServiceCheck[]).map((c) => c.id)).not.toContain(hiddenCheck);
    expect((await t.request('GET', `/api/v2/checks/${hiddenCheck}`, { key: limited.raw_key })).status).toBe(
      404,
    );

    const ok = await create(limited.raw_key, mine.assetId);
    expect(ok.status, ok.text).toBe(201);
    const id = (ok.json.data as ServiceCheck).id;
    // Changing what the agent probes takes the same; moving the check back to the hub does not.
    const retarget = await t.request('PATCH', `/api/v2/checks/${id}`, {
      body: { target: '10.9.9.9:22' },
      key: noExec.raw_key,
    });
    expect(retarget.status).toBe(403);
    const toHub = await t.request('PATCH', `/api/v2/checks/${id}`, {
      body: { run_from_asset_id: null },
      key: noExec.raw_key,
    });
    expect(toHub.status, toHub.text).toBe(200);
    expect((toHub.json.data as ServiceCheck).run_from_asset_id).toBeNull();
  });
});
