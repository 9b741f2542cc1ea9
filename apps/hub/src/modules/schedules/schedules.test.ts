import { describe, expect, it } from 'vitest';
import type { Schedule, ScheduleRun, SavedAction } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { useOperations, type OperationsApp } from '../../testing/operations-app.js';
import { connectExecCountingAgent } from '../../testing/exec-counting-agent.js';
import { execOutcome } from '../../testing/exec-outcome.js';

async function runsOf(ops: OperationsApp, id: string): Promise<ScheduleRun[]> {
  const res = await ops.request('GET', `/api/v2/schedules/${id}/runs`);
  if (res.status !== 200) throw new Error(JSON.stringify(res.json));
  return res.json.data as ScheduleRun[];
}

describe.each(databaseTargets())('schedules ($name)', ({ options }) => {
  const use = useOperations(options);

  it('runs each tick once with per-target results, and moves on to the next tick', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ name: 'backup-host' });
    const agent = connectExecCountingAgent(
      ops.gateway,
      asset.id,
      (command, call) => `${command} #${String(call)}\n`,
    );
    // The next whole minute in Berlin, from the test clock.
    const created = await ops.request('POST', '/api/v2/schedules', {
      body: {
        name: 'nightly',
        cron: '0 * * * * *',
        timezone: 'Europe/Berlin',
        command: 'backup',
        targets: [asset.id],
      },
    });
    expect(created.status).toBe(201);
    const schedule = created.json.data as Schedule;
    const first = Date.parse(schedule.next_run_at ?? '');
    expect(first).toBeGreaterThan(t.clock.now().getTime());
    expect(new Date(first).getUTCSeconds()).toBe(0);

    // Before the tick nothing runs; at it, one run; passes at the same instant claim nothing more.
    await ops.scheduler.runDue();
    expect(agent.calls).toBe(0);
    t.clock.set(new Date(first + 200));
    await Promise.all([ops.scheduler.runDue(), ops.scheduler.runDue()]);
    await ops.scheduler.runDue();
    await ops.scheduler.idle();
    expect(agent.calls).toBe(1);

    const [run] = await runsOf(ops, schedule.id);
    expect(run).toMatchObject({
      status: 'completed',
      tick_at: new Date(first).toISOString(),
      ticks: 1,
      summary: { total: 1, ok: 1, timeout: 0, offline: 0, error: 0 },
      error: null,
    });
    expect(run?.results.map((r) => [r.asset_id, r.stdout])).toEqual([[asset.id, 'backup #1\n']]);
    const listed = (await ops.request('GET', '/api/v2/schedules')).json.data as Schedule[];
    const after = listed.find((s) => s.id === schedule.id);
    expect(after?.last_run_at).toBe(new Date(first).toISOString());
    expect(after?.next_run_at).toBe(new Date(first + 60_000).toISOString());
    const completed = ops.events.filter((e) => e.type === 'schedule.completed');
    expect(completed.map((e) => e.data)).toEqual([
      expect.objectContaining({
        schedule_id: schedule.id,
        status: 'completed',
        ok: 1,
        asset_ids: [asset.id],
      }),
    ]);

    // The next tick runs in its turn.
    t.clock.set(new Date(first + 60_000 + 500));
    await ops.scheduler.runDue();
    await ops.scheduler.idle();
    expect(agent.calls).toBe(2);
    expect((await runsOf(ops, schedule.id)).map((r) => r.status)).toEqual(['completed', 'completed']);
  });

  it('reports ticks missed while the hub was down as one missed run, and does not replay them', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const agent = connectExecCountingAgent(ops.gateway, asset.id);
    const created = await ops.request('POST', '/api/v2/schedules', {
      body: { name: 'every minute', cron: '* * * * *', command: 'true', targets: [asset.id] },
    });
    const schedule = created.json.data as Schedule;
    const first = Date.parse(schedule.next_run_at ?? '');
    // Ten minutes pass with nothing running (the hub was down); then it starts again.
    t.clock.set(new Date(first + 10 * 60_000 + 30_000));
    await ops.scheduler.runDue();
    await ops.scheduler.idle();
    expect(agent.calls).toBe(0);
    const [missed] = await runsOf(ops, schedule.id);
    expect(missed).toMatchObject({ status: 'missed', ticks: 11, tick_at: new Date(first).toISOString() });
    const listed = (await ops.request('GET', '/api/v2/schedules')).json.data as Schedule[];
    expect(listed.find((s) => s.id === schedule.id)?.next_run_at).toBe(
      new Date(first + 11 * 60_000).toISOString(),
    );
  });

  it('runs a saved action, reporting a run that fails as failed', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, { handlers: { 'exec.run': (p) => execOutcome({ stdout: p.command }) } });
    const action = (
      await ops.request('POST', '/api/v2/actions', {
        body: { name: 'hello', command: 'echo hello', targets: [asset.id] },
      })
    ).json.data as SavedAction;
    const created = await ops.request('POST', '/api/v2/schedules', {
      body: { name: 'hourly hello', cron: '0 * * * *', timezone: 'UTC', action_id: action.id },
    });
    expect(created.status).toBe(201);
    const schedule = created.json.data as Schedule;
    expect(schedule).toMatchObject({ action_id: action.id, command: null, targets: [asset.id] });
    t.clock.set(new Date(Date.parse(schedule.next_run_at ?? '') + 100));
    await ops.scheduler.runDue();
    await ops.scheduler.idle();
    const [run] = await runsOf(ops, schedule.id);
    expect(run?.results[0]?.stdout).toBe('echo hello');

    // The asset goes away: the next tick is a failed run with the reason; the schedule stays.
    await t.request('DELETE', `/api/v2/assets/${asset.id}`);
    t.clock.advance(3600_000);
    await ops.scheduler.runDue();
    await ops.scheduler.idle();
    const [failed] = await runsOf(ops, schedule.id);
    expect(failed).toMatchObject({ status: 'failed' });
    expect(failed?.error).toContain(asset.id);

    expect((await ops.request('DELETE', `/api/v2/actions/${action.id}`)).status).toBe(409);
    expect((await ops.request('DELETE', `/api/v2/schedules/${schedule.id}`)).status).toBe(200);
    expect((await ops.request('GET', `/api/v2/schedules/${schedule.id}/runs`)).status).toBe(404);
  });

  it('answers 400 naming the field for a bad cron expression, time zone or missing command', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const base = { name: 's', command: 'true', targets: [asset.id] };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, cron: '61 * * * *' }, 'cron'],
      [{ ...base, cron: 'every day' }, 'cron'],
      [{ ...base, cron: '* * * * * * *' }, 'cron'],
      [{ ...base, cron: '0 0 30 2 *' }, 'cron'],
      [{ ...base, cron: '* * * * *', timezone: 'Mars/Olympus' }, 'timezone'],
      [{ name: 's', cron: '* * * * *', targets: [asset.id] }, 'command'],
      [{ ...base, cron: '* * * * *', action_id: 'act_00000000000000000000000000' }, 'command'],
      [{ name: 's', cron: '* * * * *', command: 'true' }, 'targets'],
    ];
    for (const [body, field] of cases) {
      const res = await ops.request('POST', '/api/v2/schedules', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.message, JSON.stringify(body)).toContain(field);
    }
  });

  it('needs the right to run what it schedules, and hides schedules on assets a key cannot see', async () => {
    const { t, ops } = use();
    const mine = await t.createAsset();
    const other = await t.createAsset();
    const noExec = await t.createKey({ role: 'operator', scopes: ['schedules:*'] });
    const refused = await ops.request('POST', '/api/v2/schedules', {
      key: noExec.raw_key,
      body: { name: 's', cron: '* * * * *', command: 'true', targets: [mine.id] },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('insufficient_scope');

    const restricted = await t.createKey({
      role: 'operator',
      scopes: ['schedules:*', 'assets:exec'],
      allowed_assets: [mine.id],
    });
    const hidden = await ops.request('POST', '/api/v2/schedules', {
      key: restricted.raw_key,
      body: { name: 's', cron: '* * * * *', command: 'true', targets: [other.id] },
    });
    expect(hidden.status).toBe(404);
    const owners = (
      await ops.request('POST', '/api/v2/schedules', {
        body: { name: 'owner', cron: '* * * * *', command: 'true', targets: [other.id] },
      })
    ).json.data as Schedule;
    const listed = (await ops.request('GET', '/api/v2/schedules', { key: restricted.raw_key })).json
      .data as Schedule[];
    expect(listed.map((s) => s.id)).not.toContain(owners.id);
    const runs = await ops.request('GET', `/api/v2/schedules/${owners.id}/runs`, { key: restricted.raw_key });
    expect(runs.status).toBe(404);
    const del = await ops.request('DELETE', `/api/v2/schedules/${owners.id}`, { key: restricted.raw_key });
    expect(del.status).toBe(404);
  });

  it('refuses to run a schedule whose creator key was revoked: recorded, audited and published', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const agent = connectExecCountingAgent(ops.gateway, asset.id, () => 'ran\n');
    const key = await t.createKey({ role: 'operator', scopes: ['schedules:*', 'assets:exec'] });
    const created = await ops.request('POST', '/api/v2/schedules', {
      key: key.raw_key,
      body: { name: 'theirs', cron: '0 * * * * *', command: 'true', targets: [asset.id] },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const schedule = created.json.data as Schedule;
    expect((await t.request('DELETE', `/api/v2/keys/${key.id}`)).status).toBe(200);

    t.clock.set(new Date(Date.parse(schedule.next_run_at ?? '') + 200));
    await ops.scheduler.runDue();
    await ops.scheduler.idle();

    expect(agent.calls).toBe(0);
    const [run] = await runsOf(ops, schedule.id);
    expect(run?.status).toBe('refused');
    expect(run?.error).toContain('was revoked');
    expect(run?.error).toContain(key.id);
    // Events are stored, then delivered: the subscriber hears it a moment after the run is recorded.
    const published = () =>
      ops.events
        .filter((e) => e.type === 'schedule.completed')
        .map((e) => e.data as { schedule_id: string; status: string })
        .filter((d) => d.schedule_id === schedule.id)
        .map((d) => d.status);
    await expect.poll(published, { timeout: 10_000 }).toEqual(['refused']);
    const audited = await t.hub.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'schedule.run_refused')
      .execute();
    expect(audited.map((a) => a.target_id)).toEqual([schedule.id]);
    // The owner's schedules still run.
    const owners = await ops.request('POST', '/api/v2/schedules', {
      body: { name: 'owner', cron: '0 * * * * *', command: 'true', targets: [asset.id] },
    });
    const next = Date.parse((owners.json.data as Schedule).next_run_at ?? '');
    t.clock.set(new Date(next + 200));
    await ops.scheduler.runDue();
    await ops.scheduler.idle();
    expect(agent.calls).toBe(1);
  });

  it('pauses a schedule: no tick runs and none is reported missed; resumed, it waits for the next tick', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const agent = connectExecCountingAgent(ops.gateway, asset.id);
    const created = await ops.request('POST', '/api/v2/schedules', {
      body: { name: 'pausable', cron: '* * * * *', command: 'true', targets: [asset.id] },
    });
    const schedule = created.json.data as Schedule;
    expect(schedule.enabled).toBe(true);
    const first = Date.parse(schedule.next_run_at ?? '');

    const paused = await ops.request('PATCH', `/api/v2/schedules/${schedule.id}`, {
      body: { enabled: false },
    });
    expect(paused.status, JSON.stringify(paused.json)).toBe(200);
    expect(paused.json.data).toMatchObject({ enabled: false, next_run_at: null });
    // Ten minutes of ticks pass while paused.
    t.clock.set(new Date(first + 10 * 60_000 + 30_000));
    await ops.scheduler.runDue();
    await ops.scheduler.idle();
    expect(agent.calls).toBe(0);
    expect(await runsOf(ops, schedule.id)).toEqual([]);

    const resumed = await ops.request('PATCH', `/api/v2/schedules/${schedule.id}`, {
      body: { enabled: true },
    });
    expect(resumed.status).toBe(200);
    const next = Date.parse((resumed.json.data as Schedule).next_run_at ?? '');
    expect(next).toBe(first + 11 * 60_000);
    await ops.scheduler.runDue();
    expect(agent.calls).toBe(0);
    t.clock.set(new Date(next + 100));
    await ops.scheduler.runDue();
    await ops.scheduler.idle();
    expect(agent.calls).toBe(1);
    expect((await runsOf(ops, schedule.id)).map((r) => r.status)).toEqual(['completed']);

    const audited = await t.hub.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', schedule.id)
      .orderBy('id')
      .execute();
    expect(audited.map((r) => r.action)).toEqual([
      'schedule.created',
      'schedule.paused',
      'schedule.resumed',
      'schedule.run',
    ]);
  });

  it('edits name, cron, command and targets; checks them like a create', async () => {
    const { t, ops } = use();
    const one = await t.createAsset();
    const two = await t.createAsset();
    const created = await ops.request('POST', '/api/v2/schedules', {
      body: { name: 'before', cron: '0 3 * * *', command: 'true', targets: [one.id] },
    });
    const schedule = created.json.data as Schedule;
    const edited = await ops.request('PATCH', `/api/v2/schedules/${schedule.id}`, {
      body: {
        name: 'after',
        cron: '30 4 * * *',
        timezone: 'Europe/Berlin',
        command: 'uptime',
        targets: [two.id],
      },
    });
    expect(edited.status, JSON.stringify(edited.json)).toBe(200);
    const data = edited.json.data as Schedule;
    expect(data).toMatchObject({
      name: 'after',
      cron: '30 4 * * *',
      timezone: 'Europe/Berlin',
      command: 'uptime',
      targets: [two.id],
      enabled: true,
    });
    expect(data.next_run_at).not.toBe(schedule.next_run_at);
    const listed = (await ops.request('GET', '/api/v2/schedules')).json.data as Schedule[];
    expect(listed.find((s) => s.id === schedule.id)).toMatchObject({ name: 'after', command: 'uptime' });

    for (const [body, field] of [
      [{ cron: 'not a cron' }, 'cron'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{}, 'body'],
    ] as const) {
      const bad = await ops.request('PATCH', `/api/v2/schedules/${schedule.id}`, { body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(bad.json)).toContain(field);
    }
    const restricted = await t.createKey({
      role: 'operator',
      scopes: ['schedules:*', 'assets:exec'],
      allowed_assets: [one.id],
    });
    // Outside its allowed assets: the schedule is not there for it.
    const hidden = await ops.request('PATCH', `/api/v2/schedules/${schedule.id}`, {
      key: restricted.raw_key,
      body: { enabled: false },
    });
    expect(hidden.status).toBe(404);
    const noExec = await t.createKey({ role: 'operator', scopes: ['schedules:*'] });
    const refused = await ops.request('PATCH', `/api/v2/schedules/${schedule.id}`, {
      key: noExec.raw_key,
      body: { command: 'reboot' },
    });
    expect(refused.status).toBe(403);
    const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });
    const viewerPatch = await ops.request('PATCH', `/api/v2/schedules/${schedule.id}`, {
      key: viewer.raw_key,
      body: { enabled: false },
    });
    expect(viewerPatch.status).toBe(403);
  });
});
