import { describe, expect, it } from 'vitest';
import type { ActionRun, SavedAction } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { useOperations } from '../../testing/operations-app.js';
import { execOutcome } from '../../testing/exec-outcome.js';

describe.each(databaseTargets())('a saved action run with an Idempotency-Key ($name)', ({ options }) => {
  const use = useOperations(options);

  async function setUp() {
    const { t, ops } = use();
    const web = await t.createAsset({ name: 'web' });
    let runs = 0;
    ops.gateway.connect(web.id, {
      handlers: {
        'exec.run': () => {
          runs += 1;
          return execOutcome({ stdout: `run ${String(runs)}\n` });
        },
      },
    });
    const create = async (name: string) => {
      const created = await ops.request('POST', '/api/v2/actions', {
        body: { name, command: 'uptime', targets: [web.id] },
      });
      return created.json.data as SavedAction;
    };
    return { t, ops, create, runs: () => runs };
  }

  it('runs once: a replay with the same key answers the first run and runs nothing', async () => {
    const { ops, create, runs } = await setUp();
    const action = await create('uptime');
    const send = () =>
      ops.request('POST', `/api/v2/actions/${action.id}/run`, {
        headers: { 'idempotency-key': 'queued-0001-aaaa' },
      });

    const first = await send();
    const replay = await send();

    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect((replay.json.data as ActionRun).results[0]?.stdout).toBe('run 1\n');
    expect(replay.json.data).toEqual(first.json.data);
    expect(runs()).toBe(1);

    const fresh = await ops.request('POST', `/api/v2/actions/${action.id}/run`, {
      headers: { 'idempotency-key': 'queued-0002-bbbb' },
    });
    expect((fresh.json.data as ActionRun).results[0]?.stdout).toBe('run 2\n');
    expect(runs()).toBe(2);
  });

  it('keeps keys per credential, refuses a key reused for another action and a malformed key', async () => {
    const { t, ops, create, runs } = await setUp();
    const one = await create('one');
    const two = await create('two');
    const headers = { 'idempotency-key': 'queued-0003-cccc' };
    await ops.request('POST', `/api/v2/actions/${one.id}/run`, { headers });

    const other = await ops.request('POST', `/api/v2/actions/${two.id}/run`, { headers });
    expect(other.status).toBe(409);
    expect(other.json.message).toMatch(/used for another request/);

    const operator = await t.createKey({ role: 'operator' });
    const theirs = await ops.request('POST', `/api/v2/actions/${one.id}/run`, {
      key: operator.raw_key,
      headers,
    });
    expect(theirs.status).toBe(200);
    expect(runs()).toBe(2);

    const malformed = await ops.request('POST', `/api/v2/actions/${one.id}/run`, {
      headers: { 'idempotency-key': 'no spaces allowed' },
    });
    expect(malformed.status).toBe(400);
    expect(runs()).toBe(2);
  });

  it('frees the key when the run is refused, so a later retry may run', async () => {
    const { ops, runs } = await setUp();
    const headers = { 'idempotency-key': 'queued-0004-dddd' };
    const missing = await ops.request('POST', '/api/v2/actions/act_01hzzzzzzzzzzzzzzzzzzzzzzz/run', {
      headers,
    });
    expect(missing.status).toBe(404);
    expect(runs()).toBe(0);
    const rows = await use()
      .t.hub.database.db.selectFrom('idempotency_records')
      .selectAll()
      .where('key', '=', 'queued-0004-dddd')
      .execute();
    expect(rows).toEqual([]);
  });
});
