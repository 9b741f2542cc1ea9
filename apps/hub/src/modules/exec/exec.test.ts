import { describe, expect, it } from 'vitest';
import type { ExecManyResult, ExecResult, Group } from '@svc/protocol';
import { databaseTargets, type TestHub } from '@svc/testkit';
import { AgentReplyError, AgentTimeoutError } from '../../agents/agent-gateway.js';
import { createInProcessEventBus } from '../../platform/event-bus.js';
import { FakeGateway } from '../../testing/fake-gateway.js';
import { systemOwnerContext } from '../../access/principal.js';
import { createAgentCaller } from '../../agents/agent-call.js';
import { createAssetReads } from '../assets/asset-reads.service.js';
import { useOperations } from '../../testing/operations-app.js';
import type { AuditService } from '../audit/audit.service.js';
import { capStream, createExecService } from './exec.service.js';
import { execOutcome } from '../../testing/exec-outcome.js';

async function auditRows(t: TestHub, assetId: string, action = 'exec.run') {
  return t.hub.database.db
    .selectFrom('audit_events')
    .selectAll()
    .where('asset_id', '=', assetId)
    .where('action', '=', action)
    .execute();
}

async function makeGroup(t: TestHub, assetIds: string[]): Promise<Group> {
  const res = await t.request('POST', '/api/v2/groups', {
    body: { name: `g-${Math.random().toString(36).slice(2, 8)}`, asset_ids: assetIds },
  });
  if (res.status !== 201) throw new Error(res.text);
  return res.json.data as Group;
}

describe.each(databaseTargets())('exec ($name)', ({ options }) => {
  const use = useOperations(options);

  it('runs a command on one asset and returns the agent result, audited first and announced after', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ name: 'web-1' });
    ops.gateway.connect(asset.id, {
      handlers: {
        'exec.run': async (payload) => {
          // The audit row exists by the time the agent is asked.
          expect(await auditRows(t, asset.id)).toHaveLength(1);
          return execOutcome({ stdout: `ran: ${payload.command}\n`, exit_code: 3 });
        },
      },
    });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/exec`, { body: { command: 'uptime' } });

    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      asset_id: asset.id,
      status: 'ok',
      exit_code: 3,
      stdout: 'ran: uptime\n',
      stderr: '',
      truncated: false,
      duration_ms: 12,
      error: null,
    });
    const [call] = ops.gateway.callsOf('exec.run');
    expect(call?.payload).toEqual({ command: 'uptime', timeout_ms: 30_000, max_output_bytes: 1024 * 1024 });
    // The hub waits longer than the command may run, so the agent's own timeout result can arrive.
    expect(call?.options.timeoutMs).toBeGreaterThan(30_000);
    const [row] = await auditRows(t, asset.id);
    expect(JSON.parse(row!.detail)).toMatchObject({ command: 'uptime', timeout: 30 });
    const completed = ops.events.filter((e) => e.type === 'exec.completed');
    expect(completed.map((e) => [e.data.asset_id, e.data.status, e.data.exit_code])).toEqual([
      [asset.id, 'ok', 3],
    ]);
  });

  it('answers 409 asset_offline with the name, id and last-seen time for an offline single target', async () => {
    const { t, ops } = use();
    const seen = await t.createAsset({ name: 'nas' });
    await ops.setLastSeen(seen.id, '2026-11-20T08:30:00.000Z');
    const never = await t.createAsset({ name: 'fresh' });

    const a = await ops.request('POST', `/api/v2/assets/${seen.id}/exec`, { body: { command: 'true' } });
    const b = await ops.request('POST', `/api/v2/assets/${never.id}/exec`, { body: { command: 'true' } });

    expect(a.status).toBe(409);
    expect(a.json).toMatchObject({
      error: 'asset_offline',
      status: 409,
      message: `asset nas (${seen.id}) is offline (last seen: 2026-11-20T08:30:00.000Z)`,
    });
    expect(b.json.message).toBe(`asset fresh (${never.id}) is offline (last seen: never)`);
    expect(ops.gateway.calls).toHaveLength(0);
    expect(await auditRows(t, seen.id)).toHaveLength(0);
  });

  it('returns a timeout as a result: from the agent, and when the agent never answers', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, {
      handlers: {
        'exec.run': () =>
          execOutcome({ exit_code: null, signal: 'SIGKILL', timed_out: true, stdout: 'partial' }),
      },
    });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/exec`, {
      body: { command: 'sleep 99', timeout: 5 },
    });

    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ status: 'timeout', exit_code: null, stdout: 'partial' });
    expect((res.json.data as ExecResult).error).toContain('5 s');
    expect(ops.gateway.callsOf('exec.run')[0]?.payload).toMatchObject({ timeout_ms: 5000 });

    ops.gateway.handle(asset.id, 'exec.run', () => {
      throw new AgentTimeoutError(asset.id, 'exec.run');
    });
    const silent = await ops.request('POST', `/api/v2/assets/${asset.id}/exec`, {
      body: { command: 'x', timeout: 1 },
    });
    expect(silent.status).toBe(200);
    expect(silent.json.data).toMatchObject({ status: 'timeout', exit_code: null });
  });

  it('says what the command left running (ended by the agent), and nothing when it left nothing', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, {
      handlers: { 'exec.run': () => execOutcome({ left_running: { count: 2, killed: true } }) },
    });
    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/exec`, {
      body: { command: 'sleep 100 & setsid sleep 100 &' },
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ status: 'ok', left_running: { count: 2, killed: true } });

    ops.gateway.handle(asset.id, 'exec.run', () => execOutcome());
    const clean = await ops.request('POST', `/api/v2/assets/${asset.id}/exec`, { body: { command: 'true' } });
    expect(clean.json.data).not.toHaveProperty('left_running');
  });

  it('refuses a timeout outside 1..3600 and an empty command before anything is sent', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, { handlers: { 'exec.run': () => execOutcome() } });
    for (const body of [
      { command: 'x', timeout: 0 },
      { command: 'x', timeout: 3601 },
      { command: 'x', timeout: '30' },
      { command: '' },
      { command: 'x', extra: 1 },
    ]) {
      const res = await ops.request('POST', `/api/v2/assets/${asset.id}/exec`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(ops.gateway.calls).toHaveLength(0);
  });

  it('caps each stream at 1 MiB on a character boundary and says it truncated', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const big = '€'.repeat(400_000); // 1.2 MB in UTF-8
    ops.gateway.connect(asset.id, {
      handlers: { 'exec.run': () => execOutcome({ stdout: big, stderr: 'small' }) },
    });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/exec`, { body: { command: 'yes €' } });

    const data = res.json.data as ExecResult;
    expect(data.truncated).toBe(true);
    expect(Buffer.byteLength(data.stdout, 'utf8')).toBeLessThanOrEqual(1024 * 1024);
    expect(data.stdout).toBe('€'.repeat(Math.floor((1024 * 1024) / 3)));
    expect(data.stderr).toBe('small');
  });

  it('fans out to targets concurrently, in the order given, with offline and failed targets as results', async () => {
    const { t, ops } = use();
    const ok = await t.createAsset({ name: 'ok' });
    const down = await t.createAsset({ name: 'down' });
    await ops.setLastSeen(down.id, '2026-11-22T10:00:00.000Z');
    const broken = await t.createAsset({ name: 'broken' });
    ops.gateway.connect(ok.id, { handlers: { 'exec.run': () => execOutcome({ stdout: 'hi' }) } });
    ops.gateway.connect(broken.id, {
      handlers: {
        'exec.run': () => {
          throw new AgentReplyError('failed', 'cannot spawn /bin/sh');
        },
      },
    });

    const res = await ops.request('POST', '/api/v2/exec', {
      body: { targets: [broken.id, down.id, ok.id], command: 'echo hi' },
    });

    expect(res.status).toBe(200);
    const data = res.json.data as ExecManyResult;
    expect(data.results.map((r) => [r.asset_id, r.status])).toEqual([
      [broken.id, 'error'],
      [down.id, 'offline'],
      [ok.id, 'ok'],
    ]);
    expect(data.results[0]?.error).toContain('cannot spawn /bin/sh');
    expect(data.results[1]?.error).toBe(
      `asset down (${down.id}) is offline (last seen: 2026-11-22T10:00:00.000Z)`,
    );
    expect(data.summary).toEqual({ total: 3, ok: 1, timeout: 0, offline: 1, error: 1 });
    expect(
      ops.gateway
        .callsOf('exec.run')
        .map((c) => c.assetId)
        .sort(),
    ).toEqual([broken.id, ok.id].sort());
    expect(await auditRows(t, ok.id)).toHaveLength(1);
    expect(await auditRows(t, down.id)).toHaveLength(0);
  });

  it('refuses the whole fan-out with 404 when any target is unknown, and runs nothing', async () => {
    const { t, ops } = use();
    const a = await t.createAsset();
    ops.gateway.connect(a.id, { handlers: { 'exec.run': () => execOutcome() } });
    const ghost = 'ast_00000000000000000000000000';

    const res = await ops.request('POST', '/api/v2/exec', {
      body: { targets: [a.id, ghost], command: 'rm -rf /tmp/x' },
    });

    expect(res.status).toBe(404);
    expect(res.json.error).toBe('not_found');
    expect(res.json.message).toContain(ghost);
    expect(ops.gateway.calls).toHaveLength(0);
    expect(await auditRows(t, a.id)).toHaveLength(0);
  });

  it('refuses a target outside allowed_assets exactly like an unknown one', async () => {
    const { t, ops } = use();
    const mine = await t.createAsset();
    const theirs = await t.createAsset();
    for (const id of [mine.id, theirs.id])
      ops.gateway.connect(id, { handlers: { 'exec.run': () => execOutcome() } });
    const key = await t.createKey({ role: 'operator', scopes: ['assets:exec'], allowed_assets: [mine.id] });

    const refused = await ops.request('POST', '/api/v2/exec', {
      key: key.raw_key,
      body: { targets: [mine.id, theirs.id], command: 'id' },
    });
    const single = await ops.request('POST', `/api/v2/assets/${theirs.id}/exec`, {
      key: key.raw_key,
      body: { command: 'id' },
    });

    expect(refused.status).toBe(404);
    expect(single.status).toBe(404);
    expect(ops.gateway.calls).toHaveLength(0);
    const allowed = await ops.request('POST', '/api/v2/exec', {
      key: key.raw_key,
      body: { targets: [mine.id], command: 'id' },
    });
    expect(allowed.status).toBe(200);
    expect(ops.gateway.calls.map((c) => c.assetId)).toEqual([mine.id]);
  });

  it('fans out to the members of a group, and targets win over group', async () => {
    const { t, ops } = use();
    const a = await t.createAsset();
    const b = await t.createAsset();
    const c = await t.createAsset();
    for (const id of [a.id, b.id, c.id])
      ops.gateway.connect(id, { handlers: { 'exec.run': () => execOutcome() } });
    const group = await makeGroup(t, [a.id, b.id]);

    const all = await ops.request('POST', '/api/v2/exec', { body: { group: group.id, command: 'hostname' } });
    expect(all.status).toBe(200);
    expect((all.json.data as ExecManyResult).results.map((r) => r.asset_id)).toEqual([a.id, b.id].sort());

    const key = await t.createKey({ role: 'operator', scopes: ['assets:exec'], allowed_assets: [b.id] });
    const hiddenGroup = await makeGroup(t, [c.id]);
    const hidden = await ops.request('POST', '/api/v2/exec', {
      key: key.raw_key,
      body: { group: hiddenGroup.id, command: 'x' },
    });
    expect(hidden.status).toBe(404);

    const both = await ops.request('POST', '/api/v2/exec', {
      body: { targets: [c.id], group: group.id, command: 'x' },
    });
    expect((both.json.data as ExecManyResult).results.map((r) => r.asset_id)).toEqual([c.id]);
  });

  it("refuses a group with any member outside the key's allowed assets: 404, nothing runs or is audited", async () => {
    const { t, ops } = use();
    const mine = await t.createAsset();
    const theirs = await t.createAsset();
    for (const id of [mine.id, theirs.id])
      ops.gateway.connect(id, { handlers: { 'exec.run': () => execOutcome() } });
    const mixed = await makeGroup(t, [mine.id, theirs.id]);
    const key = await t.createKey({ role: 'operator', scopes: ['assets:exec'], allowed_assets: [mine.id] });

    for (const accept of [undefined, 'application/x-ndjson']) {
      const res = await ops.request('POST', '/api/v2/exec', {
        key: key.raw_key,
        body: { group: mixed.id, command: 'id' },
        ...(accept !== undefined ? { accept } : {}),
      });
      expect(res.status, accept).toBe(404);
      expect(res.json.error).toBe('not_found');
      // The hidden member's id is not given away by the refusal.
      expect(res.json.message).not.toContain(theirs.id);
    }
    expect(ops.gateway.calls).toHaveLength(0);
    expect(await auditRows(t, mine.id)).toHaveLength(0);
    expect(await auditRows(t, theirs.id)).toHaveLength(0);

    // A group wholly inside the key's assets still runs.
    const own = await makeGroup(t, [mine.id]);
    const allowed = await ops.request('POST', '/api/v2/exec', {
      key: key.raw_key,
      body: { group: own.id, command: 'id' },
    });
    expect(allowed.status).toBe(200);
    expect(ops.gateway.calls.map((c) => c.assetId)).toEqual([mine.id]);
  });

  it('refuses an empty target set with 400 and never means "all"', async () => {
    const { t, ops } = use();
    const a = await t.createAsset();
    ops.gateway.connect(a.id, { handlers: { 'exec.run': () => execOutcome() } });
    const empty = await makeGroup(t, []);

    const cases = [
      { targets: [], command: 'x' },
      { command: 'x' },
      { group: empty.id, command: 'x' },
      { targets: [], group: empty.id, command: 'x' },
    ];
    for (const body of cases) {
      const res = await ops.request('POST', '/api/v2/exec', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error).toBe('validation');
    }
    expect(ops.gateway.calls).toHaveLength(0);
  });

  it('is refused by the guard without the assets:exec scope or with a viewer key', async () => {
    const { t, ops } = use();
    const a = await t.createAsset();
    ops.gateway.connect(a.id, { handlers: { 'exec.run': () => execOutcome() } });
    const reader = await t.createKey({ role: 'operator', scopes: ['assets:read'] });
    const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });

    const noScope = await ops.request('POST', `/api/v2/assets/${a.id}/exec`, {
      key: reader.raw_key,
      body: { command: 'x' },
    });
    const readOnly = await ops.request('POST', '/api/v2/exec', {
      key: viewer.raw_key,
      body: { targets: [a.id], command: 'x' },
    });

    expect(noScope.status).toBe(403);
    expect(noScope.json.error).toBe('insufficient_scope');
    expect(readOnly.status).toBe(403);
    expect(ops.gateway.calls).toHaveLength(0);
  });
});

describe('exec service', () => {
  const ctx = systemOwnerContext(null);
  const use = useOperations();

  it('keeps at most `concurrency` commands in flight', async () => {
    const { t } = use();
    const gateway = new FakeGateway();
    const ids: string[] = [];
    let inFlight = 0;
    let peak = 0;
    for (let i = 0; i < 7; i += 1) {
      const { id } = await t.createAsset();
      ids.push(id);
      gateway.connect(id, {
        handlers: {
          'exec.run': async () => {
            inFlight += 1;
            peak = Math.max(peak, inFlight);
            await new Promise((resolve) => setTimeout(resolve, 5));
            inFlight -= 1;
            return execOutcome();
          },
        },
      });
    }
    const exec = createExecService({
      audit: t.hub.services.audit,
      agents: createAgentCaller({ assets: createAssetReads(t.hub.database.db), gateway }),
      groups: t.hub.services.groups,
      events: createInProcessEventBus({ clock: t.clock, validate: true }),
      concurrency: 2,
    });

    const result = await exec.runOnAssets(ctx, ids, { command: 'x' });

    expect(result.summary.ok).toBe(7);
    expect(peak).toBe(2);
  });

  it('does not send the command when the audit row cannot be written', async () => {
    const { t } = use();
    const gateway = new FakeGateway();
    const { id } = await t.createAsset();
    gateway.connect(id, { handlers: { 'exec.run': () => execOutcome() } });
    const failingAudit: AuditService = {
      record: () => Promise.reject(new Error('disk full')),
      recordMany: () => Promise.reject(new Error('disk full')),
      recordIntent: () => Promise.reject(new Error('disk full')),
      list: () => Promise.reject(new Error('unused')),
      countSince: () => Promise.reject(new Error('unused')),
      recordOfMany: () => Promise.reject(new Error('disk full')),
    };
    const exec = createExecService({
      audit: failingAudit,
      agents: createAgentCaller({ assets: createAssetReads(t.hub.database.db), gateway }),
      groups: t.hub.services.groups,
      events: createInProcessEventBus({ clock: t.clock, validate: true }),
    });

    await expect(exec.runOne(ctx, id, { command: 'reboot' })).rejects.toThrow('disk full');
    await expect(exec.runOnAssets(ctx, [id], { command: 'reboot' })).rejects.toThrow('disk full');
    expect(gateway.calls).toHaveLength(0);
  });
});

describe('capStream', () => {
  it('leaves short text alone and cuts long text at a character boundary', () => {
    expect(capStream('abc', 3)).toEqual({ text: 'abc', cut: false });
    expect(capStream('ab€', 4)).toEqual({ text: 'ab', cut: true });
    expect(capStream('a😀b', 4)).toEqual({ text: 'a', cut: true });
    expect(capStream('a😀b', 5)).toEqual({ text: 'a😀', cut: true });
  });
});
