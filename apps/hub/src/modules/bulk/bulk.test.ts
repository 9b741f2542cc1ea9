import { describe, expect, it } from 'vitest';
import type { BulkServiceOutcome, Group } from '@svc/protocol';
import { databaseTargets, type TestHub } from '@svc/testkit';
import { AgentReplyError } from '../../agents/agent-gateway.js';
import { useOperations } from '../../testing/operations-app.js';

async function makeGroup(t: TestHub, assetIds: string[]): Promise<Group> {
  const res = await t.request('POST', '/api/v2/groups', {
    body: { name: `g-${Math.random().toString(36).slice(2, 8)}`, asset_ids: assetIds },
  });
  if (res.status !== 201) throw new Error(res.text);
  return res.json.data as Group;
}

describe.each(databaseTargets())('bulk service action ($name)', ({ options }) => {
  const use = useOperations(options);

  it('acts on every target through the single service action, one result each', async () => {
    const { t, ops } = use();
    const a = await t.createAsset({ name: 'a' });
    const b = await t.createAsset({ name: 'b' });
    const offline = await t.createAsset({ name: 'c' });
    ops.gateway.connect(a.id, {
      handlers: { 'services.action': ({ name, action }) => ({ name, action, active_state: 'active' }) },
    });
    ops.gateway.connect(b.id, {
      handlers: {
        'services.action': () => {
          throw new AgentReplyError('not_found', 'no unit nginx.service');
        },
      },
    });
    const group = await makeGroup(t, [a.id, b.id, offline.id]);

    const res = await ops.request('POST', '/api/v2/bulk/service-action', {
      body: { service: 'nginx.service', action: 'restart', group: group.id },
    });
    expect(res.status).toBe(200);
    const outcome = res.json.data as BulkServiceOutcome;
    const byId = new Map(outcome.results.map((r) => [r.asset_id, r]));
    expect(byId.get(a.id)).toEqual({ asset_id: a.id, status: 'ok', active_state: 'active', error: null });
    expect(byId.get(b.id)).toMatchObject({ status: 'error', active_state: null });
    expect(byId.get(b.id)?.error).toContain('no unit nginx.service');
    expect(byId.get(offline.id)).toMatchObject({ status: 'offline' });
    expect(byId.get(offline.id)?.error).toContain('is offline');
    expect(outcome.summary).toEqual({ total: 3, ok: 1, offline: 1, error: 1 });
    expect(ops.gateway.callsOf('services.action').map((c) => c.payload)).toEqual([
      { name: 'nginx.service', action: 'restart' },
      { name: 'nginx.service', action: 'restart' },
    ]);
    // Audited per target as the single route is, and announced per target that answered.
    const audited = await t.hub.database.db
      .selectFrom('audit_events')
      .select(['asset_id', 'request_id'])
      .where('action', '=', 'service.restart')
      .where('asset_id', 'in', [a.id, b.id, offline.id])
      .execute();
    expect(audited.map((r) => r.asset_id).sort()).toEqual([a.id, b.id].sort());
    expect(new Set(audited.map((r) => r.request_id)).size).toBe(1);
    expect(ops.events.filter((e) => e.type === 'service.restarted').map((e) => e.data.asset_id)).toEqual([
      a.id,
    ]);
  });

  it('refuses the whole request for a target outside allowed_assets, before anything runs', async () => {
    const { t, ops } = use();
    const mine = await t.createAsset();
    const theirs = await t.createAsset();
    for (const id of [mine.id, theirs.id]) {
      ops.gateway.connect(id, {
        handlers: { 'services.action': ({ name, action }) => ({ name, action, active_state: 'active' }) },
      });
    }
    const key = await t.createKey({ role: 'operator', scopes: ['bulk:*'], allowed_assets: [mine.id] });
    const byTargets = await ops.request('POST', '/api/v2/bulk/service-action', {
      key: key.raw_key,
      body: { service: 'sshd', action: 'stop', targets: [mine.id, theirs.id] },
    });
    expect(byTargets.status).toBe(404);
    expect(byTargets.json.message).toContain(theirs.id);
    const group = await makeGroup(t, [mine.id, theirs.id]);
    const byGroup = await ops.request('POST', '/api/v2/bulk/service-action', {
      key: key.raw_key,
      body: { service: 'sshd', action: 'stop', group: group.id },
    });
    expect(byGroup.status).toBe(404);
    expect(byGroup.json.message).not.toContain(theirs.id);
    expect(ops.gateway.callsOf('services.action')).toHaveLength(0);

    const allowed = await ops.request('POST', '/api/v2/bulk/service-action', {
      key: key.raw_key,
      body: { service: 'sshd', action: 'stop', targets: [mine.id] },
    });
    expect(allowed.status).toBe(200);
    const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });
    const readOnly = await ops.request('POST', '/api/v2/bulk/service-action', {
      key: viewer.raw_key,
      body: { service: 'sshd', action: 'stop', targets: [mine.id] },
    });
    expect(readOnly.status).toBe(403);
  });

  it('answers 400 naming the field for a bad service name, action or target set', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const cases: [Record<string, unknown>, string][] = [
      [{ service: '--help', action: 'stop', targets: [asset.id] }, 'service'],
      [{ service: 'a;reboot', action: 'stop', targets: [asset.id] }, 'service'],
      [{ service: 'sshd', action: 'reload', targets: [asset.id] }, 'action'],
      [{ service: 'sshd', action: 'stop' }, 'targets'],
      [{ service: 'sshd', action: 'stop', targets: [] }, 'targets'],
    ];
    for (const [body, field] of cases) {
      const res = await ops.request('POST', '/api/v2/bulk/service-action', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.json), JSON.stringify(body)).toContain(field);
    }
    expect(ops.gateway.calls).toHaveLength(0);
  });
});
