/**
 * End to end (issue 19, "Done when"): three hub processes (the built hub) on one PostgreSQL database and one
 * NATS, behind Debian's HAProxy running deploy/haproxy/haproxy.cfg; three real svc-agent processes enrolled and
 * connected through HAProxy, one held by each process (leastconn, started one after another).
 *
 * Three parts:
 * - what one shared PostgreSQL gives already: a write on one process read on the others, a schedule's tick run
 *   once, a webhook delivered once;
 * - what needs the cluster bus and routing between processes (SVC_NATS_URL, presence with a holder node, the
 *   coherent caches and limits): exec, fan-out and files through a process that does not hold the agent, the
 *   event stream across processes, a terminal attached through a process other than its owner (decision
 *   0043), rate limits and key revocation across processes;
 * - a process SIGKILLed in the middle of writes: nothing acknowledged is lost, its agent comes back on another.
 *
 * Which process holds an agent is read from the shared database (the asset's holder node and that node's pid).
 * Everything listens and connects on 127.0.0.1.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  sessionCloseCodes,
  type Asset,
  type EnrollmentTokenCreated,
  type ExecManyResult,
  type ExecResult,
  type Group,
  type ScheduleRun,
  type Session,
} from '@svc/protocol';
import {
  haproxyBinary,
  startBalancedCluster,
  type BalancedCluster,
  type HubCluster,
  type RunningHaproxy,
} from '@svc/testkit';
import {
  dataOf,
  enrollAgent,
  HubClient,
  killChildren,
  powerGuard,
  runAgent,
  sleep,
  waitFor,
  type AgentProcess,
} from './support.js';

const haveHaproxy = fs.existsSync(haproxyBinary);
const postgresUrl = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/**
 * Per-key requests a minute, counted across the cluster once limits are shared: well above what the owner's key
 * spends in a minute elsewhere in this file, so only the rate-limit test meets it.
 */
const perKeyLimit = 600;

let started: BalancedCluster | undefined;
let cluster: HubCluster;
let lb: RunningHaproxy;
/** One client per process, with the owner's key. */
let api: HubClient[] = [];
const agents: { process: AgentProcess; assetId: string }[] = [];
let receiver: { server: http.Server; port: number; bodies: string[] };

async function holderOf(assetId: string, timeoutMs = 45_000): Promise<number> {
  return waitFor(
    `a process holding ${assetId}`,
    async () => {
      const held = await cluster.holdersOf(assetId);
      return held.length === 1 ? held[0]?.index : undefined;
    },
    { timeoutMs, intervalMs: 300 },
  );
}

const others = (index: number) => [0, 1, 2].filter((i) => i !== index);
const client = (index: number): HubClient => {
  const c = api[index];
  if (!c) throw new Error(`no client for process ${String(index)}`);
  return c;
};

async function startReceiver(): Promise<typeof receiver> {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, bodies };
}

/** A webhook made on process `madeOn` for asset.created; an asset made on `causedOn`; one delivery. */
async function expectOneDelivery(madeOn: number, causedOn: number, name: string): Promise<void> {
  const hook = dataOf<{ id: string }>(
    await client(madeOn).post('/api/v2/webhooks', {
      name: `receiver for ${name}`,
      url: `http://127.0.0.1:${String(receiver.port)}/hook`,
      events: ['asset.created'],
    }),
    201,
  );
  try {
    const asset = dataOf<Asset>(await client(causedOn).post('/api/v2/assets', { name }), 201);
    await waitFor(
      'the delivery',
      () => (receiver.bodies.some((b) => b.includes(asset.id)) ? true : undefined),
      { timeoutMs: 20_000 },
    );
    // Whatever else might deliver it (another process, a retry) has had its chance.
    await sleep(3_000);
    expect(receiver.bodies.filter((b) => b.includes(asset.id))).toHaveLength(1);
  } finally {
    await client(madeOn).delete(`/api/v2/webhooks/${hook.id}`);
  }
}

beforeAll(async () => {
  if (!haveHaproxy) return;
  receiver = await startReceiver();
  started = await startBalancedCluster({
    postgresUrl,
    env: {
      SVC_TRUSTED_PROXIES: '127.0.0.1',
      SVC_RATE_LIMIT_ENABLED: 'true',
      SVC_RATE_LIMIT_PER_KEY: String(perKeyLimit),
      SVC_RATE_LIMIT_PER_IP: '100000',
      // The webhook receiver is a plain HTTP server on loopback.
      SVC_OUTBOUND_ALLOW_LOOPBACK: 'true',
      SVC_OUTBOUND_ALLOW_INSECURE: 'true',
    },
  });
  ({ cluster, lb } = started);
  api = [0, 1, 2].map((i) => new HubClient(cluster.url(i), cluster.caPem, cluster.owner.key));

  // Three real agents through HAProxy, one after another: leastconn gives each to a process holding none.
  const guard = powerGuard(cluster.workDir);
  const token = dataOf<EnrollmentTokenCreated>(
    await client(0).post('/api/v2/enrollment-tokens', { name: 'cluster e2e', max_uses: 3 }),
    201,
  );
  for (let n = 0; n < 3; n++) {
    const configPath = path.join(cluster.workDir, `agent-${String(n)}`, 'settings.json');
    const enrolled = await enrollAgent({
      hubUrl: lb.url,
      token: token.token,
      caFingerprint: cluster.caFingerprint,
      configPath,
      hostname: `cluster-agent-${String(n)}`,
    });
    if (enrolled.code !== 0) throw new Error(`svc-agent enroll failed: ${enrolled.output}`);
    const assetId = (JSON.parse(fs.readFileSync(configPath, 'utf8')) as { asset_id: string }).asset_id;
    const agentProcess = runAgent(configPath, {
      AGENT_COLLECT_INTERVAL: '5s',
      SVC_AGENT_ALLOW_POWER_ACTIONS: 'false',
      PATH: `${guard.binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    });
    agents.push({ process: agentProcess, assetId });
    try {
      await holderOf(assetId, 40_000);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nagent output:\n${agentProcess.output()}`, {
        cause: error,
      });
    }
  }
}, 240_000);

afterAll(async () => {
  for (const a of agents) await a.process.stop('SIGTERM', 3_000);
  await killChildren();
  for (const c of api) c.close();
  await started?.close();
  (receiver as typeof receiver | undefined)?.server.close();
}, 60_000);

describe.skipIf(!haveHaproxy)('three processes on one PostgreSQL', () => {
  it('spreads the agents: each process holds one', async () => {
    const holders = await Promise.all(agents.map((a) => holderOf(a.assetId)));
    expect([...holders].sort()).toEqual([0, 1, 2]);
  });

  it('reads on every process what one process wrote', async () => {
    const asset = dataOf<Asset>(
      await client(0).post('/api/v2/assets', { name: 'made-on-a', tags: ['cluster'] }),
      201,
    );
    const group = dataOf<Group>(
      await client(1).post('/api/v2/groups', { name: 'made-on-b', asset_ids: [asset.id] }),
      201,
    );
    const key = dataOf<{ raw_key: string }>(
      await client(2).post('/api/v2/keys', { name: 'made-on-c', role: 'viewer', scopes: ['*'] }),
      201,
    );
    for (const i of [0, 1, 2]) {
      expect(dataOf<Asset>(await client(i).get(`/api/v2/assets/${asset.id}`)).name).toBe('made-on-a');
      expect(dataOf<Group>(await client(i).get(`/api/v2/groups/${group.id}`)).name).toBe('made-on-b');
      expect((await client(i).get('/api/v2/whoami', { key: key.raw_key })).status).toBe(200);
    }
  });

  it('runs each tick of a schedule once across the cluster', { timeout: 60_000 }, async () => {
    const target = agents[0]?.assetId ?? '';
    const schedule = dataOf<{ id: string }>(
      await client(0).post('/api/v2/schedules', {
        name: 'every two seconds',
        cron: '*/2 * * * * *',
        command: 'true',
        targets: [target],
      }),
      201,
    );
    const runs = await waitFor(
      'five ticks run',
      async () => {
        const list = dataOf<ScheduleRun[]>(
          await client(1).get(`/api/v2/schedules/${schedule.id}/runs?per_page=100`),
        );
        return list.filter((r) => r.status !== 'missed').length >= 5 ? list : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    await client(2).request('PATCH', `/api/v2/schedules/${schedule.id}`, { body: { enabled: false } });
    const ticks = runs.map((r) => r.tick_at);
    expect(new Set(ticks).size).toBe(ticks.length);
  });

  it('delivers a webhook once (made and fired on one process)', async () => {
    await expectOneDelivery(0, 0, 'hooked-on-a');
  }, 40_000);
});

describe.skipIf(!haveHaproxy)('across processes: bus, presence, routing', () => {
  it('delivers a webhook made on A once for an event caused on B', async () => {
    await expectOneDelivery(0, 1, 'hooked-on-b');
  }, 40_000);

  it('execs on an agent held by another process', { timeout: 60_000 }, async () => {
    for (const a of agents) {
      const holder = await holderOf(a.assetId);
      for (const other of others(holder)) {
        const result = dataOf<ExecResult>(
          await client(other).post(`/api/v2/assets/${a.assetId}/exec`, { command: 'echo from-afar' }),
        );
        expect(result.status).toBe('ok');
        expect(result.stdout).toBe('from-afar\n');
      }
    }
  });

  it('fans out over agents held by all three processes', async () => {
    const outcome = dataOf<ExecManyResult>(
      await client(0).post('/api/v2/exec', {
        command: 'echo fanned',
        targets: agents.map((a) => a.assetId),
      }),
    );
    expect(outcome.summary).toMatchObject({ total: 3, ok: 3 });
    expect(outcome.results.map((r) => r.stdout)).toEqual(['fanned\n', 'fanned\n', 'fanned\n']);
  });

  it('writes a file through one process that does not hold the agent and reads it through another', async () => {
    const a = agents[0];
    if (!a) throw new Error('no agent');
    const holder = await holderOf(a.assetId);
    const [writer, reader] = others(holder) as [number, number];
    const file = path.join(cluster.workDir, 'cluster-file.txt');
    const content = Buffer.from('written across processes\n');
    dataOf(
      await client(writer).post(`/api/v2/assets/${a.assetId}/files/write`, {
        path: file,
        content_base64: content.toString('base64'),
      }),
    );
    const read = await client(reader).get(
      `/api/v2/assets/${a.assetId}/files/read?path=${encodeURIComponent(file)}`,
    );
    expect(read.status).toBe(200);
    expect(read.body.equals(content)).toBe(true);
  });

  it("shows on process C's event stream an event caused on process A", async () => {
    const stream = new WebSocket(`${cluster.url(2).replace(/^https/, 'wss')}/api/v2/events/stream`, {
      headers: { authorization: `Bearer ${cluster.owner.key}` },
      ca: cluster.caPem,
    });
    const seen: string[] = [];
    stream.on('message', (data: Buffer) => seen.push(data.toString('utf8')));
    try {
      await new Promise<void>((resolve, reject) => {
        stream.once('open', () => {
          resolve();
        });
        stream.once('error', reject);
      });
      const asset = dataOf<Asset>(await client(0).post('/api/v2/assets', { name: 'seen-on-c' }), 201);
      await waitFor(
        'asset.created on C',
        () => (seen.some((m) => m.includes('asset.created') && m.includes(asset.id)) ? true : undefined),
        { timeoutMs: 10_000 },
      );
    } finally {
      stream.close();
    }
  });

  it('attaches a terminal through a process that neither owns it nor holds its agent', async () => {
    const a = agents[0];
    if (!a) throw new Error('no agent');
    const holder = await holderOf(a.assetId);
    const [owner, through] = others(holder) as [number, number];
    const session = dataOf<Session>(
      await client(owner).post(`/api/v2/assets/${a.assetId}/sessions`, {
        kind: 'terminal',
        cols: 80,
        rows: 24,
      }),
      201,
    );
    const ws = new WebSocket(
      `${cluster.url(through).replace(/^https/, 'wss')}/api/v2/sessions/${session.id}/attach`,
      { headers: { authorization: `Bearer ${cluster.owner.key}` }, ca: cluster.caPem },
    );
    let output = '';
    const texts: string[] = [];
    ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) output += data.toString('utf8');
      else texts.push(data.toString('utf8'));
    });
    const closed = new Promise<number>((resolve) => ws.once('close', resolve));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => {
        resolve();
      });
      ws.once('error', reject);
    });
    // The shell computes it: the typed line's echo alone does not contain it.
    ws.send(Buffer.from('echo relayed-$((40+2))\n'), { binary: true });
    await waitFor('the shell’s answer', () => (output.includes('relayed-42') ? true : undefined), {
      timeoutMs: 15_000,
    });
    ws.send(JSON.stringify({ type: 'close' }));
    expect(await closed).toBe(sessionCloseCodes.ended);
    expect(texts.at(-1)).toContain('"ended"');
    // The recording, made on the owner, is read through the third process.
    const recording = session.recording_id;
    if (recording) {
      const cast = await waitFor(
        'the recording',
        async () => {
          const res = await client(holder).get(`/api/v2/recordings/${recording}/cast`);
          return res.status === 200 && res.body.toString('utf8').includes('relayed-42') ? res : undefined;
        },
        { timeoutMs: 10_000 },
      );
      expect(cast.status).toBe(200);
    }
  }, 60_000);

  it('counts a key’s rate limit across processes', { timeout: 60_000 }, async () => {
    const key = dataOf<{ raw_key: string }>(
      await client(0).post('/api/v2/keys', { name: 'limited', role: 'viewer', scopes: ['*'] }),
      201,
    );
    let accepted = 0;
    let limited = 0;
    const started = Date.now();
    // 1.5 × the limit, spread evenly: per process each stays under it, together they pass it.
    for (let n = 0; n < perKeyLimit * 1.5; n++) {
      const res = await client(n % 3).get('/api/v2/whoami', { key: key.raw_key });
      if (res.status === 200) accepted++;
      else if (res.status === 429) limited++;
    }
    // The bucket refills continuously (limit per minute): what it gave back meanwhile may be spent too.
    const refilled = Math.ceil(((Date.now() - started) / 60_000) * perKeyLimit);
    expect(limited).toBeGreaterThan(0);
    // Limits of each process's own would accept all 1.5 × the limit. The shared one holds near the limit; its
    // slack (decision 0040) grows when the exchange's timing drifts on a loaded machine.
    expect(accepted).toBeLessThanOrEqual(Math.ceil((perKeyLimit + refilled + 3) * 1.1));
  });

  it('refuses on B within a second a key revoked on A', async () => {
    const key = dataOf<{ id: string; raw_key: string }>(
      await client(0).post('/api/v2/keys', { name: 'revoked soon', role: 'viewer', scopes: ['*'] }),
      201,
    );
    // B has seen the key (and may have cached it).
    expect((await client(1).get('/api/v2/whoami', { key: key.raw_key })).status).toBe(200);
    expect((await client(0).delete(`/api/v2/keys/${key.id}`)).status).toBeLessThan(300);
    await waitFor(
      'the key refused on B',
      async () =>
        (await client(1).get('/api/v2/whoami', { key: key.raw_key })).status === 401 ? true : undefined,
      { timeoutMs: 1_000, intervalMs: 50 },
    );
  });
});

describe.skipIf(!haveHaproxy)('a process killed mid-run', () => {
  it('loses no acknowledged write, and its agent comes back on another process', async () => {
    const victimAgent = agents[1];
    if (!victimAgent) throw new Error('no agent');
    const victim = await holderOf(victimAgent.assetId);
    const acknowledged: string[] = [];
    const run = { stop: false };
    // Writes on the victim until it dies; each 201 is a commit the hub acknowledged.
    const writer = (async () => {
      for (let n = 0; n < 2_000 && !run.stop; n++) {
        const res = await client(victim)
          .post('/api/v2/assets', { name: `kept-${String(n)}`, tags: ['kill-run'] }, { timeoutMs: 5_000 })
          .catch(() => null);
        if (res?.status === 201) acknowledged.push((res.json.data as Asset).id);
        else if (res === null) break;
      }
    })();
    await waitFor('writes under way', () => (acknowledged.length >= 20 ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 20,
    });
    await cluster.kill(victim);
    run.stop = true;
    await writer;
    expect(acknowledged.length).toBeGreaterThanOrEqual(20);

    const survivor = client(others(victim)[0] ?? 0);
    for (const id of acknowledged) {
      expect((await survivor.get(`/api/v2/assets/${id}`)).status).toBe(200);
    }
    const back = await holderOf(victimAgent.assetId, 60_000);
    expect(back).not.toBe(victim);
    // The others' agents stayed where they were, and exec through the new holder works.
    const result = dataOf<ExecResult>(
      await client(back).post(`/api/v2/assets/${victimAgent.assetId}/exec`, { command: 'echo back' }),
    );
    expect(result.stdout).toBe('back\n');
  }, 120_000);
});
