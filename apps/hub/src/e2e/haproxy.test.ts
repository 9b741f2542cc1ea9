/**
 * End to end (issue 19, decision 0041): Debian's HAProxy running deploy/haproxy/haproxy.cfg in front of three
 * hub processes (the built hub, one PostgreSQL database, the shared CA), all on loopback. Shows what the
 * configuration promises: requests are spread over the processes, a killed process is taken out by the health
 * check while requests keep succeeding, a process stopped with SIGTERM drains (its /readyz says `stopping`
 * until HAProxy has moved off it; decision 0046) with no request failing, WebSockets (an agent's channel, the
 * event stream) go through, and the hub sees the caller's address, not HAProxy's.
 */
import fs from 'node:fs';
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { agentChannelPath, type AuditEvent, type EnrollmentTokenCreated } from '@svc/protocol';
import {
  FakeAgent,
  haproxyBinary,
  startBalancedCluster,
  type BalancedCluster,
  type HubCluster,
  type RunningHaproxy,
} from '@svc/testkit';
import { sleep, waitFor } from './support.js';

const haveHaproxy = fs.existsSync(haproxyBinary);
const postgresUrl = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let cluster: HubCluster;
let lb: RunningHaproxy;

interface Answer {
  status: number;
  json: { data?: unknown };
}

/** One request on a connection of its own (so HAProxy balances each), optionally from another loopback address. */
function call(
  method: string,
  urlPath: string,
  options: { body?: unknown; localAddress?: string; key?: string; base?: string } = {},
): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(urlPath, options.base ?? lb.url),
      {
        method,
        ca: cluster.caPem,
        agent: false,
        timeout: 15_000,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${options.key ?? cluster.owner.key}`,
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let json: Answer['json'];
          try {
            json = JSON.parse(text) as Answer['json'];
          } catch {
            json = {};
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath}: no answer in time`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** The backends HAProxy's request log names (`svc_hubs/hub2`), counted. */
function servedBy(log: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of log.matchAll(/svc_hubs\/(hub\d)\b/g)) {
    const name = match[1] ?? '';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

/**
 * HAProxy's log from now on, as a function to call later. The log is kept as a tail of 64 KiB, so what came
 * after now is found after its last lines as they are now (the whole tail if those have scrolled out).
 */
function logSinceNow(): () => string {
  const mark = lb.output().slice(-300);
  return () => {
    const log = lb.output();
    const at = mark === '' ? -1 : log.lastIndexOf(mark);
    return at === -1 ? log : log.slice(at + mark.length);
  };
}

let started: BalancedCluster | undefined;

beforeAll(async () => {
  if (!haveHaproxy) return;
  started = await startBalancedCluster({
    postgresUrl,
    // HAProxy connects from 127.0.0.1: the processes trust its X-Forwarded-For (and nothing else's).
    env: { SVC_TRUSTED_PROXIES: '127.0.0.1' },
    // hub3 drains for 5 s when stopped (the default with SVC_NATS_URL; the test harness sets 0 elsewhere).
    nodeEnv: (index): Record<string, string> => (index === 2 ? { SVC_SHUTDOWN_DRAIN_SECONDS: '5' } : {}),
  });
  ({ cluster, lb } = started);
  // Every backend passes its first health checks before the test counts where requests go.
  await waitFor(
    'three backends up',
    async () => ((await call('GET', '/readyz')).status === 200 ? true : undefined),
    { timeoutMs: 15_000 },
  );
}, 180_000);

afterAll(async () => {
  await started?.close();
}, 60_000);

describe.skipIf(!haveHaproxy)('HAProxy in front of three hub processes', () => {
  it('spreads requests over the three processes', async () => {
    const before = servedBy(lb.output());
    for (let i = 0; i < 30; i++) {
      expect((await call('GET', '/api/v2/whoami')).status).toBe(200);
    }
    const after = await waitFor('30 requests in the log', () => {
      const now = servedBy(lb.output());
      const total = ['hub1', 'hub2', 'hub3'].reduce(
        (sum, n) => sum + (now.get(n) ?? 0) - (before.get(n) ?? 0),
        0,
      );
      return total >= 30 ? now : undefined;
    });
    for (const name of ['hub1', 'hub2', 'hub3']) {
      expect((after.get(name) ?? 0) - (before.get(name) ?? 0)).toBeGreaterThanOrEqual(5);
    }
  });

  it('passes the caller address to the hub (X-Forwarded-For from a trusted proxy)', async () => {
    const created = await call('POST', '/api/v2/keys', {
      body: { name: 'through haproxy', role: 'viewer', scopes: ['*'] },
      localAddress: '127.0.0.2',
    });
    expect(created.status).toBe(201);
    const keyId = (created.json.data as { id: string }).id;
    const audit = await call('GET', `/api/v2/audit/events?target_id=${keyId}`);
    expect(audit.status).toBe(200);
    const events = audit.json.data as AuditEvent[];
    expect(events.length).toBeGreaterThan(0);
    expect(events.map((e) => e.ip)).toContain('127.0.0.2');
  });

  it("carries WebSockets: an agent's channel and the event stream", async () => {
    const token = (await call('POST', '/api/v2/enrollment-tokens', { body: { name: 'lb', max_uses: 1 } }))
      .json.data as EnrollmentTokenCreated;
    const enrolled = await call('POST', '/api/v1/enroll', {
      body: { token: token.token, hostname: 'behind-lb', platform: 'linux', agent_version: 'test' },
    });
    expect(enrolled.status).toBe(201);
    const { credential } = enrolled.json.data as { credential: string };
    const agent = new FakeAgent({
      url: `${lb.url.replace(/^https/, 'wss')}${agentChannelPath}`,
      credential,
      ca: cluster.caPem,
    });
    try {
      const welcome = await agent.start();
      expect(welcome).toBeTruthy();
    } finally {
      agent.close();
    }

    const stream = new WebSocket(`${lb.url.replace(/^https/, 'wss')}/api/v2/events/stream`, {
      headers: { authorization: `Bearer ${cluster.owner.key}` },
      ca: cluster.caPem,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        stream.once('open', () => {
          resolve();
        });
        stream.once('error', reject);
        stream.once('unexpected-response', (_req, res) => {
          reject(new Error(`upgrade refused: ${String(res.statusCode)}`));
        });
      });
      expect(stream.readyState).toBe(WebSocket.OPEN);
    } finally {
      stream.close();
    }
  });

  it(
    'takes a killed process out by its health check; requests keep succeeding',
    { timeout: 90_000 },
    async () => {
      await cluster.kill(1);
      // During and after the checks that mark it down, every request still gets an answer from another process.
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await call('GET', '/api/v2/whoami')).status);
      expect(statuses.every((s) => s === 200)).toBe(true);
      await waitFor('hub2 marked down', () => (/hub2 is DOWN/.test(lb.output()) ? true : undefined), {
        timeoutMs: 15_000,
      });
      const before = servedBy(lb.output()).get('hub2') ?? 0;
      for (let i = 0; i < 20; i++) expect((await call('GET', '/api/v2/whoami')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 200));
      expect(servedBy(lb.output()).get('hub2') ?? 0).toBe(before);

      // Started again, it passes its checks and takes requests again.
      const since = logSinceNow();
      await cluster.start(1);
      await waitFor('hub2 back up', () => (/hub2 is UP/.test(since()) ? true : undefined), {
        timeoutMs: 20_000,
      });
    },
  );

  it(
    'keeps serving when every process fails its checks at once: the unchecked backups take the requests',
    { timeout: 90_000 },
    async () => {
      // All three stall (as when every process is busy at once): HAProxy's checks time out and take each out.
      const since = logSinceNow();
      for (const index of [0, 1, 2]) cluster.pause(index);
      try {
        await waitFor(
          'all three down',
          () => (/0 active and 3 backup servers left/.test(since()) ? true : undefined),
          { timeoutMs: 45_000 },
        );
        // A request now does not get HAProxy's own 503: it waits at a backup (the same process, unchecked)...
        const answer = call('GET', '/api/v2/whoami');
        await sleep(500);
        for (const index of [0, 1, 2]) cluster.resume(index);
        // ...and is answered once that process runs again, before the checks bring any process back up.
        expect((await answer).status).toBe(200);
        await waitFor('the request logged at a backup', () =>
          /svc_hubs\/hub\d-any .*"GET \/api\/v2\/whoami/.test(since()) ? true : undefined,
        );
      } finally {
        for (const index of [0, 1, 2]) cluster.resume(index);
      }
      await waitFor(
        'three backends up again',
        () =>
          ['hub1', 'hub2', 'hub3'].every(
            (n) => lb.output().lastIndexOf(`${n} is UP`) > lb.output().lastIndexOf(`${n} is DOWN`),
          )
            ? true
            : undefined,
        { timeoutMs: 30_000 },
      );
    },
  );

  it(
    'drains a process stopped with SIGTERM: it says stopping, HAProxy moves off it, no request fails',
    { timeout: 90_000 },
    async () => {
      const hub3 = { exited: false };
      const stopped = cluster.stop(2, 30_000).then(() => {
        hub3.exited = true;
      });
      const readyz = await waitFor('hub3 says stopping', async () => {
        const answer = await call('GET', '/readyz', { base: cluster.url(2) });
        return answer.status === 503 ? answer : undefined;
      });
      expect(readyz.json).toMatchObject({ status: 'unready', reason: 'stopping' });
      // Still serving while it drains: a request straight to it is answered.
      expect((await call('GET', '/api/v2/whoami', { base: cluster.url(2) })).status).toBe(200);
      const statuses: number[] = [];
      // Paced like a busy client, not a flood: the key's rate limit (3,000 a minute) stays out of the count.
      while (!hub3.exited && statuses.length < 1000) {
        statuses.push((await call('GET', '/api/v2/whoami')).status);
        await sleep(25);
      }
      await stopped;
      expect(statuses.length).toBeGreaterThan(10);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      // HAProxy had marked it down before it closed: its log says so.
      expect(lb.output()).toMatch(/hub3 is DOWN/);
    },
  );
});
