import { describe, expect, it } from 'vitest';
import type { ActionRun, Group, SavedAction } from '@svc/protocol';
import { databaseTargets, type TestHub } from '@svc/testkit';
import { useOperations } from '../../testing/operations-app.js';
import { execOutcome } from '../../testing/exec-outcome.js';

async function makeGroup(t: TestHub, assetIds: string[]): Promise<Group> {
  const res = await t.request('POST', '/api/v2/groups', {
    body: { name: `g-${Math.random().toString(36).slice(2, 8)}`, asset_ids: assetIds },
  });
  if (res.status !== 201) throw new Error(res.text);
  return res.json.data as Group;
}

describe.each(databaseTargets())('saved actions ($name)', ({ options }) => {
  const use = useOperations(options);

  it('stores a command with targets, and runs it through exec with one result per target', async () => {
    const { t, ops } = use();
    const web = await t.createAsset({ name: 'web' });
    const db = await t.createAsset({ name: 'db' });
    ops.gateway.connect(web.id, {
      handlers: { 'exec.run': (p) => execOutcome({ stdout: `web: ${p.command}\n` }) },
    });

    const created = await ops.request('POST', '/api/v2/actions', {
      body: { name: 'disk usage', command: 'df -h', targets: [web.id, db.id], timeout: 20 },
    });
    expect(created.status).toBe(201);
    const action = created.json.data as SavedAction;
    expect(action).toMatchObject({ name: 'disk usage', command: 'df -h', timeout: 20, group: null });
    expect(action.id).toMatch(/^act_/);

    const run = await ops.request('POST', `/api/v2/actions/${action.id}/run`);
    expect(run.status).toBe(200);
    const data = run.json.data as ActionRun;
    expect(data.action_id).toBe(action.id);
    expect(data.results.map((r) => [r.asset_id, r.status, r.stdout])).toEqual([
      [web.id, 'ok', 'web: df -h\n'],
      [db.id, 'offline', ''],
    ]);
    expect(data.summary).toEqual({ total: 2, ok: 1, timeout: 0, offline: 1, error: 0 });
    expect(ops.gateway.callsOf('exec.run')[0]?.payload).toMatchObject({
      command: 'df -h',
      timeout_ms: 20_000,
    });
    const completed = ops.events.filter((e) => e.type === 'action.completed');
    expect(completed.map((e) => e.data)).toEqual([
      expect.objectContaining({ action_id: action.id, total: 2, ok: 1, offline: 1 }),
    ]);

    const audited = await t.hub.database.db
      .selectFrom('audit_events')
      .select(['action', 'target_id', 'asset_id', 'request_id', 'ip'])
      .where((eb) => eb.or([eb('target_id', '=', action.id), eb('asset_id', '=', web.id)]))
      .where('action', '!=', 'asset.created')
      .orderBy('id')
      .execute();
    expect(audited.map((r) => r.action)).toEqual(['action.created', 'action.run', 'exec.run']);
    expect(audited.every((r) => r.request_id?.startsWith('req_') && r.ip === '127.0.0.1')).toBe(true);

    const list = await ops.request('GET', '/api/v2/actions');
    expect((list.json.data as SavedAction[]).map((a) => a.id)).toContain(action.id);
  });

  it('runs on a group as its members are at run time', async () => {
    const { t, ops } = use();
    const a = await t.createAsset();
    const b = await t.createAsset();
    const group = await makeGroup(t, [a.id]);
    ops.gateway.connect(a.id, { handlers: { 'exec.run': () => execOutcome({ stdout: 'a' }) } });
    ops.gateway.connect(b.id, { handlers: { 'exec.run': () => execOutcome({ stdout: 'b' }) } });
    const created = await ops.request('POST', '/api/v2/actions', {
      body: { name: 'uptime', command: 'uptime', group: group.id },
    });
    const action = created.json.data as SavedAction;
    expect(action).toMatchObject({ targets: null, group: group.id });
    await t.request('PATCH', `/api/v2/groups/${group.id}`, { body: { asset_ids: [a.id, b.id] } });

    const run = await ops.request('POST', `/api/v2/actions/${action.id}/run`);
    expect((run.json.data as ActionRun).results.map((r) => r.stdout).sort()).toEqual(['a', 'b']);
  });

  it('refuses bad input naming the field, and unknown or hidden targets with 404', async () => {
    const { t, ops } = use();
    const mine = await t.createAsset();
    const other = await t.createAsset();
    const both = await ops.request('POST', '/api/v2/actions', {
      body: { name: 'x', command: 'true', targets: [mine.id], group: 'grp_00000000000000000000000000' },
    });
    expect(both.status).toBe(400);
    expect(both.json.message).toContain('targets');
    const none = await ops.request('POST', '/api/v2/actions', { body: { name: 'x', command: 'true' } });
    expect(none.status).toBe(400);
    const empty = await ops.request('POST', '/api/v2/actions', {
      body: { name: 'x', command: 'true', targets: [] },
    });
    expect(empty.status).toBe(400);

    const key = await t.createKey({
      role: 'operator',
      scopes: ['actions:*', 'assets:exec'],
      allowed_assets: [mine.id],
    });
    const hidden = await ops.request('POST', '/api/v2/actions', {
      key: key.raw_key,
      body: { name: 'x', command: 'true', targets: [mine.id, other.id] },
    });
    expect(hidden.status).toBe(404);
    expect(hidden.json.message).toContain(other.id);

    // An action the owner aimed at an asset the key cannot see does not exist for the key.
    const owners = await ops.request('POST', '/api/v2/actions', {
      body: { name: 'owner only', command: 'true', targets: [other.id] },
    });
    const ownersId = (owners.json.data as SavedAction).id;
    const run = await ops.request('POST', `/api/v2/actions/${ownersId}/run`, { key: key.raw_key });
    expect(run.status).toBe(404);
    const listed = await ops.request('GET', '/api/v2/actions', { key: key.raw_key });
    expect((listed.json.data as SavedAction[]).map((a) => a.id)).not.toContain(ownersId);
    expect(ops.gateway.callsOf('exec.run')).toHaveLength(0);
  });

  it('keeps actions:exec apart from actions:write', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const writer = await t.createKey({ role: 'operator', scopes: ['actions:write', 'actions:read'] });
    const runner = await t.createKey({ role: 'operator', scopes: ['actions:exec'] });
    const created = await ops.request('POST', '/api/v2/actions', {
      key: writer.raw_key,
      body: { name: 'w', command: 'true', targets: [asset.id] },
    });
    expect(created.status).toBe(201);
    const id = (created.json.data as SavedAction).id;
    const refused = await ops.request('POST', `/api/v2/actions/${id}/run`, { key: writer.raw_key });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('insufficient_scope');
    const ran = await ops.request('POST', `/api/v2/actions/${id}/run`, { key: runner.raw_key });
    expect(ran.status).toBe(200);
    const cannotCreate = await ops.request('POST', '/api/v2/actions', {
      key: runner.raw_key,
      body: { name: 'r', command: 'true', targets: [asset.id] },
    });
    expect(cannotCreate.status).toBe(403);

    const deleted = await ops.request('DELETE', `/api/v2/actions/${id}`, { key: writer.raw_key });
    expect(deleted.status).toBe(200);
    expect((await ops.request('POST', `/api/v2/actions/${id}/run`)).status).toBe(404);
  });

  it('edits a saved action; changing what or where needs actions:exec and visible targets', async () => {
    const { t, ops } = use();
    const one = await t.createAsset();
    const two = await t.createAsset();
    const created = await ops.request('POST', '/api/v2/actions', {
      body: { name: 'before', command: 'uptime', targets: [one.id] },
    });
    const action = created.json.data as SavedAction;
    const edited = await ops.request('PATCH', `/api/v2/actions/${action.id}`, {
      body: {
        name: 'after',
        description: 'load',
        command: 'cat /proc/loadavg',
        targets: [two.id],
        timeout: 5,
      },
    });
    expect(edited.status, JSON.stringify(edited.json)).toBe(200);
    expect(edited.json.data).toMatchObject({
      name: 'after',
      description: 'load',
      command: 'cat /proc/loadavg',
      targets: [two.id],
      timeout: 5,
      group: null,
    });
    const group = await makeGroup(t, [one.id]);
    const onGroup = await ops.request('PATCH', `/api/v2/actions/${action.id}`, { body: { group: group.id } });
    expect(onGroup.json.data).toMatchObject({ targets: null, group: group.id });

    const writeOnly = await t.createKey({ role: 'operator', scopes: ['actions:write', 'actions:read'] });
    const renamed = await ops.request('PATCH', `/api/v2/actions/${action.id}`, {
      key: writeOnly.raw_key,
      body: { name: 'renamed' },
    });
    expect(renamed.status).toBe(200);
    const refused = await ops.request('PATCH', `/api/v2/actions/${action.id}`, {
      key: writeOnly.raw_key,
      body: { command: 'reboot' },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('insufficient_scope');

    const restricted = await t.createKey({
      role: 'operator',
      scopes: ['actions:*'],
      allowed_assets: [one.id],
    });
    const mine = await ops.request('POST', '/api/v2/actions', {
      key: restricted.raw_key,
      body: { name: 'mine', command: 'true', targets: [one.id] },
    });
    const mineId = (mine.json.data as SavedAction).id;
    const outside = await ops.request('PATCH', `/api/v2/actions/${mineId}`, {
      key: restricted.raw_key,
      body: { targets: [two.id] },
    });
    expect(outside.status).toBe(404);
    const bad = await ops.request('PATCH', `/api/v2/actions/${mineId}`, { body: { timeout: 0 } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain('timeout');

    const audited = await t.hub.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', action.id)
      .orderBy('id')
      .execute();
    expect(audited.map((r) => r.action)).toEqual([
      'action.created',
      'action.updated',
      'action.updated',
      'action.updated',
    ]);
  });
  it('never leaves a schedule pointing at a deleted action, when the delete and the schedule race', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ name: 'race' });
    for (let round = 0; round < 5; round++) {
      const created = await ops.request('POST', '/api/v2/actions', {
        body: { name: `race ${String(round)}`, command: 'uptime', targets: [asset.id] },
      });
      const action = created.json.data as SavedAction;

      const [removed, scheduled] = await Promise.all([
        ops.request('DELETE', `/api/v2/actions/${action.id}`),
        ops.request('POST', '/api/v2/schedules', {
          body: { name: `uses ${action.id}`, cron: '0 * * * *', timezone: 'UTC', action_id: action.id },
        }),
      ]);

      const actionLeft = await t.hub.database.db
        .selectFrom('saved_actions')
        .select('id')
        .where('id', '=', action.id)
        .execute();
      const schedules = await t.hub.database.db
        .selectFrom('schedules')
        .select('id')
        .where('action_id', '=', action.id)
        .execute();
      if (removed.status === 200) {
        expect(scheduled.status, 'a schedule saved for an action deleted under it').toBe(404);
        expect(schedules).toEqual([]);
        expect(actionLeft).toEqual([]);
      } else {
        expect([removed.status, scheduled.status]).toEqual([409, 201]);
        expect(schedules).toHaveLength(1);
        expect(actionLeft).toHaveLength(1);
      }
    }
  });
});
