import { request as httpRequest, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  execLimits,
  newId,
  type ExecManyResult,
  type ExecResult,
  type ExecStreamSummary,
} from '@svc/protocol';
import type { TestHub } from '@svc/testkit';
import { useOperations, type OperationsApp } from '../../testing/operations-app.js';
import { acceptsNdjson } from './exec-stream.js';
import { assetRow } from '../../testing/asset-row.js';
import { execOutcome } from '../../testing/exec-outcome.js';

const ndjson = 'application/x-ndjson';

function parseLines(body: Buffer): Record<string, unknown>[] {
  return body
    .toString('utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Resolves with `gate`'s name, or with 'fail-safe' when the gate never opens (the test then fails on it). */
async function gateOrFailSafe(gate: Promise<void>, ms: number): Promise<'gate' | 'fail-safe'> {
  let timer: NodeJS.Timeout | undefined;
  const failSafe = new Promise<'fail-safe'>((resolve) => {
    timer = setTimeout(() => {
      resolve('fail-safe');
    }, ms);
  });
  const result = await Promise.race([gate.then(() => 'gate' as const), failSafe]);
  clearTimeout(timer);
  return result;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

interface LiveStream {
  request: ClientRequest;
  status: Promise<{ status: number; contentType: string }>;
  /** Resolves when the response ended or the connection closed. */
  done: Promise<Record<string, unknown>[]>;
}

/** POSTs a fan-out over a real loopback socket and hands over each NDJSON line as it is read. */
async function openStream(
  ops: OperationsApp,
  key: string,
  body: unknown,
  onLine: (line: Record<string, unknown>, count: number) => void,
): Promise<LiveStream> {
  await ops.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ops.app.server.address() as AddressInfo;
  const lines: Record<string, unknown>[] = [];
  let onStatus: (s: { status: number; contentType: string }) => void = () => {};
  const status = new Promise<{ status: number; contentType: string }>((resolve) => {
    onStatus = resolve;
  });
  let onDone: () => void = () => {};
  const done = new Promise<Record<string, unknown>[]>((resolve) => {
    onDone = () => {
      resolve(lines);
    };
  });
  const request = httpRequest(
    {
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v2/exec',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: ndjson },
    },
    (res) => {
      onStatus({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type']) });
      res.setEncoding('utf8');
      let pending = '';
      res.on('data', (chunk: string) => {
        pending += chunk;
        let end = pending.indexOf('\n');
        while (end >= 0) {
          const line = JSON.parse(pending.slice(0, end)) as Record<string, unknown>;
          pending = pending.slice(end + 1);
          lines.push(line);
          onLine(line, lines.length);
          end = pending.indexOf('\n');
        }
      });
      res.on('end', onDone);
      res.on('close', onDone);
    },
  );
  request.on('error', onDone);
  request.end(JSON.stringify(body));
  return { request, status, done };
}

/** Inserts agent assets directly (hundreds through the API would only slow the test). */
async function insertAssets(t: TestHub, count: number): Promise<string[]> {
  const now = new Date().toISOString();
  const rows = Array.from({ length: count }, (_, i) =>
    assetRow(newId('asset'), {
      name: `fleet-${String(i).padStart(4, '0')}`,
      status: 'online',
      source: 'agent',
      last_seen_at: now,
      agent_version: '0.1.0',
      agent_connected_at: now,
      agent_low_power: 0,
      created_at: now,
    }),
  );
  for (let i = 0; i < rows.length; i += 100) {
    await t.hub.database.db
      .insertInto('assets')
      .values(rows.slice(i, i + 100))
      .execute();
  }
  return rows.map((r) => r.id);
}

async function countAudit(t: TestHub, action: string, assetIds?: readonly string[]): Promise<number> {
  let query = t.hub.database.db
    .selectFrom('audit_events')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('action', '=', action);
  if (assetIds) query = query.where('asset_id', 'in', assetIds);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('exec fan-out: the result budget of a JSON body', () => {
  const use = useOperations();

  it('answers 300 agents of 1 MiB stdout + 1 MiB stderr with 200 within 64 MiB, every target audited', async () => {
    const { t, ops } = use();
    const ids = await insertAssets(t, 300);
    // One shared string: the test's own memory stays small while the hub sees 600 MiB of output.
    const mebibyte = 'o'.repeat(execLimits.streamBytes);
    for (const id of ids) {
      ops.gateway.connect(id, {
        handlers: { 'exec.run': () => execOutcome({ stdout: mebibyte, stderr: mebibyte, exit_code: 7 }) },
      });
    }

    const res = await ops.request('POST', '/api/v2/exec', { body: { targets: ids, command: 'cat big' } });

    expect(res.status).toBe(200);
    const data = res.json.data as ExecManyResult;
    expect(data.results.map((r) => r.asset_id)).toEqual(ids);
    expect(data.summary).toEqual({ total: 300, ok: 300, timeout: 0, offline: 0, error: 0 });
    // Every result keeps its status, exit code and duration, budget or not.
    expect(data.results.every((r) => r.status === 'ok' && r.exit_code === 7 && r.duration_ms === 12)).toBe(
      true,
    );
    const streamed = data.results.reduce((sum, r) => sum + r.stdout.length + r.stderr.length, 0);
    expect(streamed).toBe(execLimits.fanOutResultBytes);
    const whole = data.results.filter(
      (r) => r.stdout.length + r.stderr.length === 2 * execLimits.streamBytes,
    );
    expect(whole).toHaveLength(32);
    expect(data.results.filter((r) => r.truncated)).toHaveLength(300 - 32);
    expect(data.results.filter((r) => r.stdout === '' && r.stderr === '')).toHaveLength(300 - 32);
    expect(res.body.length).toBeLessThan(execLimits.fanOutResultBytes + 300 * 400);
    expect(ops.gateway.callsOf('exec.run')).toHaveLength(300);
    expect(await countAudit(t, 'exec.run', ids)).toBe(300);
  });
});

describe('exec fan-out: NDJSON', () => {
  const use = useOperations();

  it('answers one line per target, the same objects as the JSON body, then the summary', async () => {
    const { t, ops } = use();
    const ok = await t.createAsset({ name: 'ok' });
    const down = await t.createAsset({ name: 'down' });
    await ops.setLastSeen(down.id, '2026-11-22T10:00:00.000Z');
    const fails = await t.createAsset({ name: 'fails' });
    ops.gateway.connect(ok.id, { handlers: { 'exec.run': () => execOutcome({ stdout: 'hi\n' }) } });
    ops.gateway.connect(fails.id, {
      handlers: { 'exec.run': () => execOutcome({ exit_code: 2, stderr: 'no such file' }) },
    });
    const body = { targets: [ok.id, down.id, fails.id], command: 'cat /x' };

    const streamed = await ops.request('POST', '/api/v2/exec', { body, accept: ndjson });
    const json = await ops.request('POST', '/api/v2/exec', { body });

    expect(streamed.status).toBe(200);
    expect(String(streamed.headers['content-type'])).toMatch(/^application\/x-ndjson/);
    expect(streamed.headers['x-content-type-options']).toBe('nosniff');
    const lines = parseLines(streamed.body);
    expect(lines).toHaveLength(4);
    const results = lines.slice(0, 3) as unknown as ExecResult[];
    const byId = (rs: readonly ExecResult[]) => [...rs].sort((a, b) => a.asset_id.localeCompare(b.asset_id));
    expect(byId(results)).toEqual(byId((json.json.data as ExecManyResult).results));
    const last = lines[3] as unknown as ExecStreamSummary;
    expect(last.summary).toEqual({ total: 3, ok: 2, timeout: 0, offline: 1, error: 0 });
    expect(last.request_id).toMatch(/^req_/);
    // A stream read to its end is not a client that went away.
    const gone = await t.hub.database.db
      .selectFrom('audit_events')
      .select('id')
      .where('action', '=', 'exec.client_gone')
      .where('detail', 'like', '%"cat /x"%')
      .execute();
    expect(gone).toHaveLength(0);
  });

  it('refuses before the 200: a bad body is 400 and an unknown target 404, as JSON, and nothing runs', async () => {
    const { t, ops } = use();
    const a = await t.createAsset();
    ops.gateway.connect(a.id, { handlers: { 'exec.run': () => execOutcome() } });

    const invalid = await ops.request('POST', '/api/v2/exec', {
      body: { targets: [a.id], command: 'x', timeout: 0 },
      accept: ndjson,
    });
    const unknown = await ops.request('POST', '/api/v2/exec', {
      body: { targets: [a.id, 'ast_00000000000000000000000000'], command: 'x' },
      accept: ndjson,
    });

    expect(invalid.status).toBe(400);
    expect(invalid.json.error).toBe('validation');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toBe('not_found');
    expect(ops.gateway.calls).toHaveLength(0);
  });

  it('writes each line as its target answers: the slowest target answers only after the others were read', async () => {
    const { t, ops } = use();
    const slow = await t.createAsset({ name: 'slow' });
    const fast = [await t.createAsset({ name: 'fast-1' }), await t.createAsset({ name: 'fast-2' })];
    const othersRead = deferred();
    let slowReleasedBy = '';
    ops.gateway.connect(slow.id, {
      handlers: {
        'exec.run': async () => {
          // Answers once the client has read both other lines: a hub that waited for every target first
          // would never get there, and the fail-safe would say so.
          slowReleasedBy = await gateOrFailSafe(othersRead.promise, 5_000);
          return execOutcome({ stdout: 'slow' });
        },
      },
    });
    for (const f of fast)
      ops.gateway.connect(f.id, { handlers: { 'exec.run': () => execOutcome({ stdout: 'fast' }) } });

    const stream = await openStream(
      ops,
      t.ownerKey,
      { targets: [slow.id, ...fast.map((f) => f.id)], command: 'x' },
      (_line, count) => {
        if (count === 2) othersRead.resolve();
      },
    );
    const lines = await stream.done;

    const { status, contentType } = await stream.status;
    expect(status).toBe(200);
    expect(contentType).toMatch(/^application\/x-ndjson/);
    expect(slowReleasedBy).toBe('gate');
    expect(lines.slice(2).map((l) => l.asset_id ?? 'summary')).toEqual([slow.id, 'summary']);
    expect(new Set(lines.slice(0, 2).map((l) => l.asset_id))).toEqual(new Set(fast.map((f) => f.id)));
  });

  it('keeps running what it sent when the client goes away, and audits how far the client got', async () => {
    const { t, ops } = use();
    const fast = await t.createAsset({ name: 'fast' });
    const slow = await t.createAsset({ name: 'slow' });
    const clientGone = deferred();
    let slowFinished = false;
    ops.gateway.connect(fast.id, { handlers: { 'exec.run': () => execOutcome({ stdout: 'done' }) } });
    ops.gateway.connect(slow.id, {
      handlers: {
        'exec.run': async () => {
          await gateOrFailSafe(clientGone.promise, 5_000);
          slowFinished = true;
          return execOutcome({ stdout: 'finished anyway' });
        },
      },
    });

    const stream = await openStream(ops, t.ownerKey, { targets: [fast.id, slow.id], command: 'x' }, () => {
      stream.request.destroy();
    });
    const lines = await stream.done;
    let gone = 0;
    for (let i = 0; i < 200 && gone === 0; i += 1) {
      gone = await countAudit(t, 'exec.client_gone');
      if (gone === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    clientGone.resolve();
    for (
      let i = 0;
      i < 200 && !ops.events.some((e) => e.type === 'exec.completed' && e.data.asset_id === slow.id);
      i += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }

    expect(lines.map((l) => l.asset_id)).toEqual([fast.id]);
    expect(gone).toBe(1);
    const row = await t.hub.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'exec.client_gone')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.detail)).toMatchObject({
      command: 'x',
      fan_out: 2,
      sent: 2,
      completed: 1,
      delivered: 1,
    });
    // The command already sent ran to its end and was announced like any other.
    expect(slowFinished).toBe(true);
    expect(ops.events.filter((e) => e.type === 'exec.completed').map((e) => e.data.asset_id)).toEqual([
      fast.id,
      slow.id,
    ]);
  });
});

describe('exec fan-out: NDJSON under load', () => {
  const budget = 4 * 1024 * 1024;
  const use = useOperations({}, { execResultBudgetBytes: budget });

  it('streams 40 results of 512 KiB (20 MiB) through a 4 MiB budget whole: the hub holds only what is in flight', async () => {
    const { t, ops } = use();
    const count = 40;
    const ids = await insertAssets(t, count);
    const half = 'x'.repeat(256 * 1024);
    let read = 0;
    const waiters: { after: number; open: () => void }[] = [];
    const releasedBy: string[] = [];
    ids.forEach((id, rank) => {
      ops.gateway.connect(id, {
        handlers: {
          'exec.run': async () => {
            // Target `rank` answers once the client has read `rank` lines: every answer waits for the one
            // before it to reach the client, so the hub can never hold more than one of them.
            const gate = deferred();
            if (read >= rank) gate.resolve();
            else waiters.push({ after: rank, open: gate.resolve });
            releasedBy.push(await gateOrFailSafe(gate.promise, 10_000));
            return execOutcome({ stdout: half, stderr: half });
          },
        },
      });
    });

    const stream = await openStream(
      ops,
      t.ownerKey,
      { targets: [...ids].reverse(), command: 'cat' },
      (_l, n) => {
        read = n;
        for (const w of waiters.filter((w) => w.after <= n)) w.open();
      },
    );
    const lines = await stream.done;

    expect((await stream.status).status).toBe(200);
    expect(releasedBy).toHaveLength(count);
    expect(releasedBy.every((how) => how === 'gate')).toBe(true);
    const results = lines.slice(0, count) as unknown as ExecResult[];
    // Arrival order, not request order: the lines came as the targets answered.
    expect(results.map((r) => r.asset_id)).toEqual(ids);
    expect(results.every((r) => !r.truncated && r.stdout.length + r.stderr.length === 512 * 1024)).toBe(true);
    const delivered = results.reduce((sum, r) => sum + r.stdout.length + r.stderr.length, 0);
    expect(delivered).toBe(count * 512 * 1024);
    expect(delivered).toBeGreaterThan(4 * budget);
    expect((lines[count] as unknown as ExecStreamSummary).summary.ok).toBe(count);
    expect(await countAudit(t, 'exec.run', ids)).toBe(count);
  });

  it('cuts what a JSON body would hold past the same budget', async () => {
    const { t, ops } = use();
    const ids = await insertAssets(t, 12);
    const half = 'x'.repeat(256 * 1024);
    for (const id of ids)
      ops.gateway.connect(id, {
        handlers: { 'exec.run': () => execOutcome({ stdout: half, stderr: half }) },
      });

    const res = await ops.request('POST', '/api/v2/exec', { body: { targets: ids, command: 'cat' } });

    const results = (res.json.data as ExecManyResult).results;
    expect(results.filter((r) => !r.truncated)).toHaveLength(8);
    expect(results.reduce((sum, r) => sum + r.stdout.length + r.stderr.length, 0)).toBe(budget);
  });
});

describe('exec fan-out: output that JSON escapes', () => {
  const budget = 4 * 1024 * 1024;
  const use = useOperations({}, { execResultBudgetBytes: budget });

  it('counts escaped bytes: 12 agents printing 1 MiB of NUL bytes cannot make a body six times the budget', async () => {
    const { t, ops } = use();
    const ids = await insertAssets(t, 12);
    const nul = '\u0000'.repeat(1024 * 1024);
    for (const id of ids)
      ops.gateway.connect(id, { handlers: { 'exec.run': () => execOutcome({ stdout: nul }) } });

    const res = await ops.request('POST', '/api/v2/exec', {
      body: { targets: ids, command: 'head -c 1M /dev/zero' },
    });

    expect(res.status).toBe(200);
    expect(res.body.length).toBeLessThan(budget + 12 * 400);
    expect((res.json.data as ExecManyResult).results.filter((r) => r.truncated)).toHaveLength(12);
  });
});

describe('acceptsNdjson', () => {
  it('takes application/x-ndjson anywhere in Accept unless its q is 0', () => {
    expect(acceptsNdjson(undefined)).toBe(false);
    expect(acceptsNdjson('application/json')).toBe(false);
    expect(acceptsNdjson('*/*')).toBe(false);
    expect(acceptsNdjson('application/x-ndjson')).toBe(true);
    expect(acceptsNdjson('application/json;q=0.9, Application/X-NDJSON ; q=0.5')).toBe(true);
    expect(acceptsNdjson('application/x-ndjson;q=0')).toBe(false);
  });
});
