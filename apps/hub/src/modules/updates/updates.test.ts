import { describe, expect, it } from 'vitest';
import type { AssetUpdates, UpdateRun, UpdateRunDetail, UpdateTargetResult } from '@svc/protocol';
import {
  databaseTargets,
  fakePackageManager as channelPackageManager,
  type FakePackageManagerOptions,
  type TestHub,
} from '@svc/testkit';
import { AgentReplyError } from '../../agents/agent-gateway.js';
import type { FakeHandlers } from '../../testing/fake-gateway.js';
import { systemOwnerContext } from '../../access/principal.js';
import { silentLogger } from '../../platform/logger.js';
import { useOperations, type OperationsApp } from '../../testing/operations-app.js';
import { createAgentCaller } from '../../agents/agent-call.js';
import { createAssetReads } from '../assets/asset-reads.service.js';
import { createInProcessEventBus } from '../../platform/event-bus.js';
import { createUpdateRunner } from './update-runner.js';

const updatesCapable = { capabilities: ['exec', 'updates'] };

/** The testkit's fake package manager behind the in-process FakeGateway: an error answer is thrown. */
function fakePackageManager(options: FakePackageManagerOptions = {}): FakeHandlers {
  const channel = channelPackageManager(options) as Record<string, (p: unknown) => unknown>;
  const out: Record<string, (p: unknown) => Promise<unknown>> = {};
  for (const [type, handler] of Object.entries(channel)) {
    out[type] = async (payload) => {
      const result = await handler(payload);
      if (result && typeof result === 'object' && 'error' in result) {
        const { code, message } = (result as { error: { code: 'failed'; message: string } }).error;
        throw new AgentReplyError(code, message);
      }
      return result;
    };
  }
  return out;
}

const noPackageManager: FakeHandlers = {
  'updates.simulate': () => {
    throw new AgentReplyError('unsupported', 'no apt, dnf, zypper, pacman or apk found');
  },
};

async function createRun(ops: OperationsApp, body: Record<string, unknown>, key?: string) {
  return ops.request('POST', '/api/v2/update-runs', { body, ...(key ? { key } : {}) });
}

async function finished(ops: OperationsApp, id: string): Promise<UpdateRunDetail> {
  await ops.updates.runner.idle();
  const res = await ops.request('GET', `/api/v2/update-runs/${id}`);
  expect(res.status).toBe(200);
  return res.json.data as UpdateRunDetail;
}

async function assets(t: TestHub, n: number, prefix: string) {
  const out: { id: string; name: string }[] = [];
  for (let i = 0; i < n; i++) out.push(await t.createAsset({ name: `${prefix}-${i}` }));
  return out;
}

describe.each(databaseTargets())('update runs ($name)', ({ options }) => {
  const use = useOperations(options);

  it('dry-runs on three targets: one planned, one offline, one without package manager support', async () => {
    const { t, ops } = use();
    const [ok, offline, unsupported] = await assets(t, 3, 'dry');
    ops.gateway.connect(ok!.id, { hello: updatesCapable, handlers: fakePackageManager() });
    ops.gateway.connect(unsupported!.id, { handlers: noPackageManager });

    const res = await createRun(ops, {
      targets: [ok!.id, offline!.id, unsupported!.id],
      mode: 'dry_run',
      selection: 'security',
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const run = res.json.data as UpdateRun;
    expect(run).toMatchObject({ mode: 'dry_run', selection: 'security', status: 'running', concurrency: 10 });

    const detail = await finished(ops, run.id);
    expect(detail.status, detail.status_reason ?? '').toBe('completed');
    expect(detail.counts).toMatchObject({ total: 3, ok: 1, offline: 1, failed: 1, pending: 0 });
    const byId = new Map(detail.results.map((r) => [r.asset_id, r]));
    expect(byId.get(ok!.id)).toMatchObject({ status: 'ok', manager: 'apt', changes: 1, error: null });
    expect(byId.get(offline!.id)?.status).toBe('offline');
    expect(byId.get(offline!.id)?.error).toContain('is offline');
    expect(byId.get(unsupported!.id)?.status).toBe('failed');
    expect(byId.get(unsupported!.id)?.error).toContain('no package manager support');

    const one = await ops.request('GET', `/api/v2/update-runs/${run.id}/results/${ok!.id}`);
    const result = one.json.data as UpdateTargetResult;
    expect(result.change_list).toEqual([
      {
        name: 'openssl',
        action: 'upgrade',
        from_version: '3.0.2-0ubuntu1.14',
        to_version: '3.0.2-0ubuntu1.15',
      },
    ]);
    expect(result.output).toContain('openssl');
    // The agents online were asked for their simulation with the selection, never for an apply.
    const asked = ops.gateway.callsOf('updates.simulate');
    expect(asked.map((c) => c.assetId).sort()).toEqual([ok!.id, unsupported!.id].sort());
    for (const call of asked)
      expect(call.payload).toEqual({ selection: 'security', packages: [], refresh: true });
    expect(ops.gateway.callsOf('updates.apply')).toEqual([]);
    const completed = ops.events.filter((e) => e.type === 'update_run.target_completed');
    expect(completed.map((e) => e.data.asset_id).sort()).toEqual(
      [ok!.id, offline!.id, unsupported!.id].sort(),
    );
    expect(ops.events.filter((e) => e.type === 'update_run.completed').map((e) => e.data.status)).toEqual([
      'completed',
    ]);
  });

  it('applies at most `concurrency` targets at once', async () => {
    const { t, ops } = use();
    const targets = await assets(t, 6, 'conc');
    let inFlight = 0;
    let most = 0;
    for (const a of targets) {
      ops.gateway.connect(a.id, {
        hello: updatesCapable,
        handlers: fakePackageManager({
          delayMs: 20,
          onCall: (phase) => {
            inFlight += phase === 'start' ? 1 : -1;
            most = Math.max(most, inFlight);
          },
        }),
      });
    }
    const res = await createRun(ops, {
      targets: targets.map((a) => a.id),
      mode: 'apply',
      selection: 'all',
      concurrency: 2,
    });
    expect(res.status).toBe(201);
    const detail = await finished(ops, (res.json.data as UpdateRun).id);
    expect(detail.counts.ok).toBe(6);
    expect(most).toBe(2);
    // Each apply is audited per target.
    const audited = await t.hub.database.db
      .selectFrom('audit_events')
      .select('asset_id')
      .where('action', '=', 'updates.apply')
      .where(
        'asset_id',
        'in',
        targets.map((a) => a.id),
      )
      .execute();
    expect(audited).toHaveLength(6);
  });

  it('stops starting targets after max_failures and records the rest skipped', async () => {
    const { t, ops } = use();
    const targets = await assets(t, 5, 'fail');
    for (const a of targets)
      ops.gateway.connect(a.id, {
        hello: updatesCapable,
        handlers: fakePackageManager({ applyExitCode: 100 }),
      });
    const res = await createRun(ops, {
      targets: targets.map((a) => a.id),
      mode: 'apply',
      selection: 'all',
      concurrency: 1,
      max_failures: 2,
    });
    const detail = await finished(ops, (res.json.data as UpdateRun).id);
    expect(detail.status).toBe('stopped');
    expect(detail.status_reason).toContain('max_failures 2');
    expect(detail.results.map((r) => r.status)).toEqual([
      'failed',
      'failed',
      'skipped',
      'skipped',
      'skipped',
    ]);
    expect(detail.results[0]).toMatchObject({ exit_code: 100, error: 'the package manager exited with 100' });
    expect(ops.gateway.callsOf('updates.apply')).toHaveLength(2);
  });

  it('cancels a scheduled run once; a second cancel is a 409', async () => {
    const { t, ops } = use();
    const [a] = await assets(t, 1, 'cancel');
    const at = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    const res = await createRun(ops, {
      targets: [a!.id],
      mode: 'apply',
      selection: 'all',
      start: 'at',
      scheduled_at: at,
    });
    expect(res.status).toBe(201);
    const run = res.json.data as UpdateRun;
    expect(run).toMatchObject({ status: 'scheduled', scheduled_at: at });
    const cancel = await ops.request('POST', `/api/v2/update-runs/${run.id}/cancel`);
    expect(cancel.status).toBe(200);
    expect((cancel.json.data as UpdateRun).status).toBe('cancelled');
    expect((cancel.json.data as UpdateRun).counts.cancelled).toBe(1);
    const again = await ops.request('POST', `/api/v2/update-runs/${run.id}/cancel`);
    expect(again.status).toBe(409);
    t.clock.set(new Date(Date.parse(at) + 1000));
    await ops.updates.runner.runDue();
    await ops.updates.runner.idle();
    expect(ops.gateway.callsOf('updates.apply')).toEqual([]);
  });

  it('claims a scheduled run once when two runners share the database', async () => {
    const { t, ops } = use();
    const [a, b] = await assets(t, 2, 'claim');
    for (const x of [a!, b!])
      ops.gateway.connect(x.id, { hello: updatesCapable, handlers: fakePackageManager() });
    const at = new Date(t.clock.now().getTime() + 60_000).toISOString();
    const res = await createRun(ops, {
      targets: [a!.id, b!.id],
      mode: 'dry_run',
      selection: 'all',
      start: 'at',
      scheduled_at: at,
    });
    const run = res.json.data as UpdateRun;
    const db = t.hub.database.db;
    const other = createUpdateRunner({
      db,
      clock: t.clock,
      audit: t.hub.services.audit,
      events: createInProcessEventBus({ clock: t.clock }),
      agents: createAgentCaller({ assets: createAssetReads(db), gateway: ops.gateway }),
      keys: t.hub.services.apiKeys,
      users: t.hub.services.users,
      logger: silentLogger,
    });
    t.clock.set(new Date(Date.parse(at) + 1000));
    await Promise.all([ops.updates.runner.runDue(), other.runDue()]);
    await Promise.all([ops.updates.runner.idle(), other.idle()]);
    expect(ops.gateway.callsOf('updates.simulate')).toHaveLength(2);
    const detail = await finished(ops, run.id);
    expect(detail).toMatchObject({ status: 'completed', counts: { ok: 2 } });
    await other.close();
  });

  it('finishes as failed a run its hub process left running when that process is gone', async () => {
    const { t, ops } = use();
    const [a, b] = await assets(t, 2, 'gone');
    const at = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    const res = await createRun(ops, {
      targets: [a!.id, b!.id],
      mode: 'apply',
      selection: 'all',
      start: 'at',
      scheduled_at: at,
    });
    const run = res.json.data as UpdateRun;
    // As another process would have left it: claimed, one target mid-call, then the process died.
    const db = t.hub.database.db;
    await db
      .updateTable('update_runs')
      .set({ status: 'running', node_id: 'node-gone-1' })
      .where('id', '=', run.id)
      .execute();
    await db
      .updateTable('update_run_targets')
      .set({ status: 'running' })
      .where('run_id', '=', run.id)
      .where('asset_id', '=', a!.id)
      .execute();
    await ops.updates.runner.onNodeGone('node-gone-1');
    const detail = await finished(ops, run.id);
    expect(detail.status).toBe('failed');
    expect(detail.status_reason).toContain('node gone');
    expect(detail.results.map((r) => r.status)).toEqual(['failed', 'skipped']);
    expect(detail.results[0]?.error).toContain('not known');
    expect(ops.events.filter((e) => e.type === 'update_run.completed').map((e) => e.data.status)).toEqual([
      'failed',
    ]);
  });

  it('binds a run to the next maintenance window holding every target, and refuses when none does', async () => {
    const { t, ops } = use();
    const [a, b] = await assets(t, 2, 'window');
    const none = await createRun(ops, {
      targets: [a!.id],
      mode: 'apply',
      selection: 'all',
      start: 'next_window',
    });
    expect(none.status).toBe(409);
    expect(none.json.message).toContain('no maintenance window holds every target');
    const starts = new Date(t.clock.now().getTime() + 2 * 3_600_000);
    const ends = new Date(starts.getTime() + 3_600_000);
    const window = await t.request('POST', '/api/v2/maintenance/windows', {
      body: {
        name: 'patch night',
        reason: 'patches',
        asset_ids: [a!.id],
        starts_at: starts.toISOString(),
        ends_at: ends.toISOString(),
      },
    });
    expect(window.status).toBe(201);
    // b is outside it: still none for both.
    const partial = await createRun(ops, {
      targets: [a!.id, b!.id],
      mode: 'apply',
      selection: 'all',
      start: 'next_window',
    });
    expect(partial.status).toBe(409);
    const bound = await createRun(ops, {
      targets: [a!.id],
      mode: 'apply',
      selection: 'all',
      start: 'next_window',
    });
    expect(bound.status).toBe(201);
    expect(bound.json.data).toMatchObject({
      status: 'scheduled',
      scheduled_at: starts.toISOString(),
      window_id: (window.json.data as { id: string }).id,
      window_ends_at: ends.toISOString(),
    });
  });

  it('refuses garbage bodies with 400 and the field', async () => {
    const { t, ops } = use();
    const [a] = await assets(t, 1, 'garbage');
    const cases: [Record<string, unknown>, string][] = [
      [{ targets: [a!.id], mode: 'dry_run', selection: 'everything' }, 'selection'],
      [
        { targets: [a!.id], mode: 'apply', selection: 'named', packages: ['-oDpkg::Pre-Invoke=x'] },
        'packages',
      ],
      [
        {
          targets: [a!.id],
          mode: 'apply',
          selection: 'named',
          packages: Array.from({ length: 501 }, (_, i) => `pkg${i}`),
        },
        'packages',
      ],
      [{ targets: [a!.id], mode: 'apply', selection: 'named' }, 'packages'],
      [{ targets: [a!.id], mode: 'apply', selection: 'all', packages: ['curl'] }, 'packages'],
      [
        { targets: [a!.id], mode: 'dry_run', selection: 'all', reboot_if_required: true },
        'reboot_if_required',
      ],
      [{ targets: [a!.id], mode: 'apply', selection: 'all', concurrency: 1000 }, 'concurrency'],
      [{ targets: [a!.id], mode: 'apply', selection: 'all', start: 'at' }, 'scheduled_at'],
      [{ mode: 'apply', selection: 'all' }, 'targets'],
    ];
    for (const [body, field] of cases) {
      const res = await createRun(ops, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(JSON.stringify(res.json)).toContain(field);
    }
    expect(ops.gateway.calls).toEqual([]);
  });

  it('lets viewers read updates but never run them; scopes and allowed assets bound who runs where', async () => {
    const { t, ops } = use();
    const [mine, theirs] = await assets(t, 2, 'authz');
    ops.gateway.connect(mine!.id, { hello: updatesCapable, handlers: fakePackageManager() });
    const viewer = await t.createKey({ role: 'viewer', scopes: ['updates:read'] });
    const reader = await t.createKey({ role: 'operator', scopes: ['updates:read'] });
    const limited = await t.createKey({
      role: 'operator',
      scopes: ['updates:*'],
      allowed_assets: [mine!.id],
    });
    const body = { targets: [mine!.id], mode: 'dry_run', selection: 'all' };

    expect((await ops.request('GET', '/api/v2/updates', { key: viewer.raw_key })).status).toBe(200);
    expect(
      (await ops.request('GET', `/api/v2/assets/${mine!.id}/updates`, { key: viewer.raw_key })).status,
    ).toBe(200);
    expect((await createRun(ops, body, viewer.raw_key)).status).toBe(403);
    expect((await createRun(ops, body, reader.raw_key)).status).toBe(403);
    expect((await createRun(ops, { ...body, targets: [theirs!.id] }, limited.raw_key)).status).toBe(404);
    const group = await t.request('POST', '/api/v2/groups', {
      body: { name: 'mixed-updates', asset_ids: [mine!.id, theirs!.id] },
    });
    const groupRun = await createRun(
      ops,
      { group: (group.json.data as { id: string }).id, mode: 'dry_run', selection: 'all' },
      limited.raw_key,
    );
    expect(groupRun.status).toBe(404);
    const own = await createRun(ops, body, limited.raw_key);
    expect(own.status).toBe(201);
    await ops.updates.runner.idle();
    // The limited key sees its own run; a run on the other asset is hidden from it.
    const other = await createRun(ops, { ...body, targets: [theirs!.id] });
    const hidden = await ops.request('GET', `/api/v2/update-runs/${(other.json.data as UpdateRun).id}`, {
      key: limited.raw_key,
    });
    expect(hidden.status).toBe(404);
    await ops.updates.runner.idle();

    // The hub's own host: an operator is refused, an admin may.
    await t.hub.services.assets.markHubHost(systemOwnerContext(), mine!.id);
    const operator = await t.createKey({ role: 'operator', scopes: ['updates:*'] });
    const refused = await createRun(ops, body, operator.raw_key);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toContain("hub's own host");
    expect((await createRun(ops, body)).status).toBe(201);
    await ops.updates.runner.idle();
  });

  it('refreshes one asset’s report and shows it in the fleet view, most security updates first', async () => {
    const { t, ops } = use();
    const [a, b] = await assets(t, 2, 'fleet');
    ops.gateway.connect(a!.id, { hello: updatesCapable, handlers: fakePackageManager() });
    ops.gateway.connect(b!.id, { hello: updatesCapable, handlers: fakePackageManager({ updates: [] }) });
    const refreshed = await ops.request('POST', `/api/v2/assets/${a!.id}/updates/refresh`);
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.data).toMatchObject({
      manager: 'apt',
      updates: 3,
      security_updates: 1,
      supported: true,
    });
    expect((refreshed.json.data as AssetUpdates).packages.map((p) => p.name)).toEqual([
      'openssl',
      'curl',
      'tzdata',
    ]);
    await ops.updates.reporter.runDue();
    const fleet = await ops.request('GET', '/api/v2/updates?security=true');
    const ids = (fleet.json.data as { asset_id: string }[]).map((r) => r.asset_id);
    expect(ids).toContain(a!.id);
    expect(ids).not.toContain(b!.id);
    const none = await ops.request('GET', '/api/v2/updates?needs_updates=false');
    expect((none.json.data as { asset_id: string }[]).map((r) => r.asset_id)).toContain(b!.id);
    expect(ops.events.some((e) => e.type === 'updates.changed' && e.data.asset_id === a!.id)).toBe(true);
    // A deleted asset's report goes with it.
    expect((await t.request('DELETE', `/api/v2/assets/${b!.id}`)).status).toBe(200);
  });
});
