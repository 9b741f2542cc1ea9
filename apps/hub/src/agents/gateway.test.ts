/**
 * The agent channel end to end over a real WebSocket on loopback: a hand-written fake agent speaks the
 * catalog (and, for the hostile cases, breaks it) against the gateway, the enrollment routes and a real hub
 * database. hub.ts does not wire the gateway yet, so each test composes it around a test hub.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  agentChannelPath,
  agentCredentialPattern,
  type EnrollResponse,
  type MetricSample,
} from '@svc/protocol';
import { startTestHub, databaseTargets, type TestHub, type TestHubOptions } from '@svc/testkit';
import { buildApp } from '../app.js';
import { createTransportCheck } from '../http/transport-security.js';
import { sha256Hex } from '../platform/crypto.js';
import { createInProcessEventBus, type HubEvent } from '../platform/event-bus.js';
import { createLogger, silentLogger } from '../platform/logger.js';
import { createRefusalLog } from '../platform/refusal-log.js';
import { agentChannelRawRoutes, agentsRoutes } from '../modules/agents/agents.routes.js';
import { createAgentsListService } from '../modules/agents/agents.service.js';
import { enrollmentRoutes } from '../modules/enrollment/enrollment.routes.js';
import { createEnrollmentService } from '../modules/enrollment/enrollment.service.js';
import { AgentOfflineError, AgentReplyError, AgentTimeoutError } from './agent-gateway.js';
import { createByteBudgets } from './byte-budget.js';
import { createChannelAuthenticator } from './channel-auth.js';
import { createChannelFailureLimiter, type ChannelFailureLimiter } from './channel-failures.js';
import {
  createAgentGateway,
  type AgentGatewayDeps,
  type AgentMover,
  type WebSocketAgentGateway,
} from './gateway.js';
import { createPresence } from './presence.js';
import { createAssetPresenceStore } from '../modules/assets/asset-presence.service.js';

// ---- the fake agent ------------------------------------------------------------------------------------

interface Received {
  v: number;
  type: string;
  id: string;
  payload: Record<string, unknown>;
}
type Answer = (type: string, payload: Record<string, unknown>, id: string) => unknown;

function helloPayload(overrides: Record<string, unknown> = {}) {
  return {
    agent_version: '0.1.0',
    protocol: 1,
    hostname: 'host-a',
    platform: 'linux',
    os_release: 'Debian 12',
    arch: 'x64',
    ip_addresses: ['192.168.1.10', '127.0.0.1', 'not-an-ip', 'fe80::1'],
    mac_addresses: ['00:00:00:00:00:00', 'AA-BB-CC-DD-EE-0F', '11:22:33:44:55:66'],
    capabilities: ['exec', 'files'],
    low_power: true,
    ...overrides,
  };
}

class FakeAgent {
  readonly frames: Received[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Answers each request with the returned result payload; undefined leaves it unanswered. */
  answer: Answer | null = null;
  private waiters: { match: (f: Received) => boolean; resolve: (f: Received) => void }[] = [];
  private seq = 0;

  constructor(readonly ws: WebSocket) {
    ws.on('error', () => undefined);
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
      });
    });
    ws.on('message', (data) => {
      const frame = JSON.parse((data as Buffer).toString('utf8')) as Received;
      this.frames.push(frame);
      this.waiters = this.waiters.filter((w) => {
        if (!w.match(frame)) return true;
        w.resolve(frame);
        return false;
      });
      if (frame.type !== 'welcome' && this.answer) {
        const result = this.answer(frame.type, frame.payload, frame.id);
        if (result !== undefined) this.send('result', result, frame.id);
      }
    });
  }

  next(match: (f: Received) => boolean): Promise<Received> {
    const seen = this.frames.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  send(type: string, payload: unknown, id = `a${++this.seq}`): void {
    this.ws.send(JSON.stringify({ v: 1, type, id, payload }));
  }

  async hello(overrides: Record<string, unknown> = {}): Promise<Received> {
    this.send('hello', helloPayload(overrides), 'hello-1');
    return this.next((f) => f.type === 'welcome');
  }

  close(): void {
    this.ws.close();
  }
}

// ---- composition -------------------------------------------------------------------------------------

interface Rig {
  t: TestHub;
  gateway: WebSocketAgentGateway & AgentMover;
  events: HubEvent[];
  samples: { assetId: string; samples: readonly MetricSample[] }[];
  url: string;
  call(
    method: string,
    url: string,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }>;
  enroll(hostname?: string): Promise<EnrollResponse>;
  connect(credential: string | null, options?: { autoPong?: boolean }): Promise<FakeAgent>;
  /** The HTTP status an upgrade gets when the hub refuses it. */
  refusedStatus(credential: string | null): Promise<number>;
  agent(credential: string, hello?: Record<string, unknown>): Promise<FakeAgent>;
  close(): Promise<void>;
}

async function compose(
  hubOptions: TestHubOptions,
  gatewayOptions: Partial<AgentGatewayDeps> & {
    tlsMode?: 'auto' | 'disabled';
    channelFailures?: ChannelFailureLimiter;
  } = {},
): Promise<Rig> {
  const t = await startTestHub(hubOptions);
  const db = t.hub.database.db;
  const bus = createInProcessEventBus({ clock: t.clock, validate: true });
  const events: HubEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const samples: Rig['samples'] = [];
  const { tlsMode, channelFailures, ...gatewayOverrides } = gatewayOptions;
  const gateway = createAgentGateway({
    clock: t.clock,
    presence: createPresence({
      store: createAssetPresenceStore(db),
      clock: t.clock,
      events: bus,
      logger: silentLogger,
    }),
    logger: silentLogger,
    events: bus,
    metrics: { add: (assetId, s) => samples.push({ assetId, samples: s }) },
    authenticate: createChannelAuthenticator({
      db,
      tlsMode: tlsMode ?? t.config.tlsMode,
      trustedProxies: t.config.trustedProxies,
      logger: gatewayOverrides.logger ?? silentLogger,
      refusals: gatewayOverrides.refusals,
      failures: channelFailures,
    }),
    heartbeatIntervalS: 30,
    collectIntervalS: 60,
    requestTimeoutMs: 3_000,
    helloTimeoutMs: 400,
    tickMs: 50,
    presenceFlushMs: 50,
    ...gatewayOverrides,
  });
  const enrollment = createEnrollmentService({
    db,
    clock: t.clock,
    audit: t.hub.services.audit,
    events: bus,
    tls: t.hub.tls,
    gateway,
    assets: t.hub.services.assets,
    enrollsPerMinute: null,
    rotationTimeoutMs: 2_000,
  });
  const app = buildApp({
    logger: silentLogger,
    isSecure: createTransportCheck({ tlsMode: t.config.tlsMode, trustedProxies: t.config.trustedProxies }),
    trustedProxies: t.config.trustedProxies,
    rateLimit: t.config.rateLimit,
    verifyApiKey: (text) => t.hub.services.apiKeys.authenticate(text),
    handlers: {
      ...enrollmentRoutes(enrollment),
      ...agentsRoutes({
        agents: createAgentsListService({ assets: t.hub.services.assets, gateway }),
        credentials: enrollment,
      }),
    },
    rawHandlers: agentChannelRawRoutes(),
  });
  const server = http.createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  server.on('upgrade', (req: http.IncomingMessage, socket, head: Buffer) => {
    gateway.handleUpgrade(req, socket, head);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}${agentChannelPath}`;
  const sockets: WebSocket[] = [];

  const call: Rig['call'] = async (method, path, body) => {
    const res = await app.inject({
      method: method as 'GET',
      url: path,
      headers: {
        authorization: `Bearer ${t.ownerKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      remoteAddress: '127.0.0.1',
    });
    return { status: res.statusCode, json: JSON.parse(res.body) as Record<string, unknown> };
  };

  const rig: Rig = {
    t,
    gateway,
    events,
    samples,
    url,
    call,
    async enroll(hostname = 'host-a') {
      const token = await call('POST', '/api/v2/enrollment-tokens', { name: 'test', max_uses: 10 });
      expect(token.status).toBe(201);
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/enroll',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({
          token: (token.json.data as { token: string }).token,
          hostname,
          platform: 'linux',
        }),
        remoteAddress: '127.0.0.1',
      });
      expect(res.statusCode).toBe(201);
      return (JSON.parse(res.body) as { data: EnrollResponse }).data;
    },
    connect(credential, options = {}) {
      const ws = new WebSocket(url, {
        headers: credential ? { authorization: `Bearer ${credential}` } : {},
        perMessageDeflate: false,
        maxPayload: 64 * 1024 * 1024,
        ...(options.autoPong === false ? { autoPong: false } : {}),
      });
      sockets.push(ws);
      const agent = new FakeAgent(ws);
      return new Promise((resolve, reject) => {
        ws.once('open', () => {
          resolve(agent);
        });
        ws.once('unexpected-response', (_req, res) => {
          reject(new Error(`upgrade refused: ${res.statusCode ?? 0}`));
        });
        ws.once('error', reject);
      });
    },
    refusedStatus(credential) {
      const ws = new WebSocket(url, { headers: credential ? { authorization: `Bearer ${credential}` } : {} });
      sockets.push(ws);
      ws.on('error', () => undefined);
      return new Promise((resolve) => {
        ws.once('open', () => {
          resolve(101);
        });
        ws.once('unexpected-response', (_req, res) => {
          resolve(res.statusCode ?? 0);
          res.resume();
        });
      });
    },
    async agent(credential, hello = {}) {
      const agent = await rig.connect(credential);
      await agent.hello(hello);
      return agent;
    },
    async close() {
      for (const ws of sockets) ws.terminate();
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
      await app.close();
      await t.close();
    },
  };
  return rig;
}

async function until<T>(
  probe: () => Promise<T> | T,
  ok: (value: T) => boolean,
  timeoutMs = 4_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function assetRow(rig: Rig, id: string) {
  return rig.t.hub.database.db
    .selectFrom('assets')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

const execOutcome = (stdout: string) => ({
  exit_code: 0,
  signal: null,
  stdout,
  stderr: '',
  truncated: false,
  timed_out: false,
  duration_ms: 1,
});

// ---- tests -------------------------------------------------------------------------------------------

describe.each(databaseTargets())('agent channel ($name)', ({ options }) => {
  // One hub for the group (each test enrolls its own assets); tests that end the gateway make their own.
  let rig: Rig;
  beforeAll(async () => {
    rig = await compose(options);
  });
  afterAll(async () => {
    await rig.close();
  });

  it('answers hello with welcome and marks the asset online with what the hello says, then offline on close', async () => {
    const enrolled = await rig.enroll('enrolled-name');
    const agent = await rig.connect(enrolled.credential);
    const welcome = await agent.hello({ hostname: 'renamed-host', agent_version: '1.2.3' });

    expect(welcome.id).toBe('hello-1');
    expect(welcome.payload).toEqual({
      asset_id: enrolled.asset_id,
      heartbeat_interval_s: 30,
      collect_interval_s: 60,
    });
    const online = await assetRow(rig, enrolled.asset_id);
    expect(online).toMatchObject({
      status: 'online',
      hostname: 'renamed-host',
      name: 'enrolled-name',
      platform: 'linux',
      agent_version: '1.2.3',
      agent_low_power: 1,
      mac_address: 'aa:bb:cc:dd:ee:0f',
      agent_connected_at: rig.t.clock.now().toISOString(),
      last_seen_at: rig.t.clock.now().toISOString(),
    });
    expect(JSON.parse(online.ip_addresses)).toEqual(['192.168.1.10', 'fe80::1']);
    expect(rig.gateway.isConnected(enrolled.asset_id)).toBe(true);
    expect(rig.gateway.sessions().map((x) => x.assetId)).toContain(enrolled.asset_id);
    expect(rig.gateway.session(enrolled.asset_id)).toMatchObject({
      assetId: enrolled.asset_id,
      remoteAddress: '127.0.0.1',
      hello: { agent_version: '1.2.3' },
    });
    const about = () =>
      rig.events.filter((e) => e.data.asset_ids.includes(enrolled.asset_id)).map((e) => e.type);
    expect(about()).toEqual(['agent.enrolled', 'asset.online', 'agent.connected']);

    rig.t.clock.advance(5_000);
    agent.close();
    const offline = await until(
      () => assetRow(rig, enrolled.asset_id),
      (r) => r.status === 'offline',
    );
    expect(offline.last_seen_at).toBe(rig.t.clock.now().toISOString());
    expect(rig.gateway.isConnected(enrolled.asset_id)).toBe(false);
    await until(about, (types) => types.includes('asset.offline'));
    expect(about()).toEqual([
      'agent.enrolled',
      'asset.online',
      'agent.connected',
      'agent.disconnected',
      'asset.offline',
    ]);
  });

  it('strips controls, escape sequences and bidi overrides from what a hello says, before anyone reads it', async () => {
    const enrolled = await rig.enroll('clean-name');
    const agent = await rig.connect(enrolled.credential);
    await agent.hello({
      hostname: 'db\u001b[31m-01\u202e\u0085',
      os_release: 'Debian\u001b]0;owned\u0007 12\r\n',
      arch: 'x64\u2066',
      agent_version: '1.2.3\u200f',
    });

    expect(await assetRow(rig, enrolled.asset_id)).toMatchObject({
      hostname: 'db-01',
      agent_version: '1.2.3',
    });
    expect(rig.gateway.session(enrolled.asset_id)?.hello).toMatchObject({
      hostname: 'db-01',
      os_release: 'Debian 12',
      arch: 'x64',
      agent_version: '1.2.3',
    });
    agent.close();
  });

  it('correlates concurrent requests with their results, whatever order the agent answers in', async () => {
    const enrolled = await rig.enroll();
    const agent = await rig.agent(enrolled.credential);
    const held: { id: string; command: string }[] = [];
    agent.answer = (type, payload, id) => {
      expect(type).toBe('exec.run');
      held.push({ id, command: payload.command as string });
      if (held.length === 20) {
        // Answer every request at once, in reverse order of arrival.
        for (const h of [...held].reverse())
          agent.send('result', { ok: true, data: execOutcome(`out:${h.command}`) }, h.id);
      }
      return undefined;
    };
    const commands = Array.from({ length: 20 }, (_, i) => `echo ${i}`);
    const results = await Promise.all(
      commands.map((command) =>
        rig.gateway.request(enrolled.asset_id, 'exec.run', {
          command,
          timeout_ms: 1000,
          max_output_bytes: 1000,
        }),
      ),
    );
    expect(results.map((r) => r.stdout)).toEqual(commands.map((c) => `out:${c}`));
    expect(new Set(held.map((h) => h.id)).size).toBe(20);
  });

  it('rejects a wrong-shaped or failed result for that request only, and ignores a result for an unknown id', async () => {
    const enrolled = await rig.enroll();
    const agent = await rig.agent(enrolled.credential);
    const id = enrolled.asset_id;

    agent.answer = () => ({ ok: true, data: { exit_code: 'zero', stdout: 42 } });
    const wrong = rig.gateway.request(id, 'exec.run', {
      command: 'x',
      timeout_ms: 1000,
      max_output_bytes: 10,
    });
    await expect(wrong).rejects.toBeInstanceOf(AgentReplyError);
    await expect(wrong).rejects.toMatchObject({ code: 'failed' });

    // Within the bytes the request pays for (byte-budget.ts), but longer than the result schema allows.
    agent.answer = () => ({ ok: true, data: execOutcome('x'.repeat(3 * 1024 * 1024)) });
    await expect(
      rig.gateway.request(id, 'exec.run', { command: 'x', timeout_ms: 1000, max_output_bytes: 1024 * 1024 }),
    ).rejects.toMatchObject({ name: 'AgentReplyError', code: 'failed' });

    agent.answer = () => ({ sure: 'thing' });
    await expect(rig.gateway.request(id, 'processes.list', {})).rejects.toMatchObject({ code: 'failed' });

    agent.answer = () => ({ ok: false, error: { code: 'permission_denied', message: 'no access to /root' } });
    await expect(rig.gateway.request(id, 'files.list', { path: '/root' })).rejects.toMatchObject({
      code: 'permission_denied',
      message: 'no access to /root',
    });

    agent.answer = null;
    agent.send('result', { ok: true, data: { saved: true } }, 'r-made-up');
    agent.answer = (type) => (type === 'files.mkdir' ? { ok: true, data: { path: '/tmp/a' } } : undefined);
    await expect(
      rig.gateway.request(id, 'files.mkdir', { path: '/tmp/a', recursive: false }),
    ).resolves.toEqual({ path: '/tmp/a' });
    expect(rig.gateway.isConnected(id)).toBe(true);
  });

  it('times out a request the agent never answers, and fails pending ones when the socket closes', async () => {
    const enrolled = await rig.enroll();
    const agent = await rig.agent(enrolled.credential);
    await expect(
      rig.gateway.request(enrolled.asset_id, 'processes.list', {}, { timeoutMs: 100 }),
    ).rejects.toBeInstanceOf(AgentTimeoutError);

    const pending = rig.gateway.request(enrolled.asset_id, 'processes.list', {});
    await agent.next((f) => f.type === 'processes.list');
    agent.ws.terminate();
    await expect(pending).rejects.toBeInstanceOf(AgentOfflineError);
    await expect(rig.gateway.request(enrolled.asset_id, 'processes.list', {})).rejects.toBeInstanceOf(
      AgentOfflineError,
    );
    await expect(rig.gateway.request('ast_nothing', 'processes.list', {})).rejects.toBeInstanceOf(
      AgentOfflineError,
    );
  });

  it('sends a batch under one timeout: each target answers, times out or fails alone, late answers still paid', async () => {
    const [quick, slow] = [await rig.enroll(), await rig.enroll()];
    const quickAgent = await rig.agent(quick.credential);
    const slowAgent = await rig.agent(slow.credential);
    const seen: string[] = [];
    quickAgent.answer = (_type, payload, id) => {
      seen.push(id);
      return { ok: true, data: execOutcome(`out:${payload.command as string}`) };
    };
    let slowId = '';
    slowAgent.answer = (_type, _payload, id) => {
      slowId = id;
      return undefined;
    };
    const payload = { command: 'echo hi', timeout_ms: 1000, max_output_bytes: 1000 };
    const settled = await Promise.allSettled(
      rig.gateway.requestMany(
        'exec.run',
        [
          { assetId: quick.asset_id, payload },
          { assetId: slow.asset_id, payload },
          { assetId: 'ast_nothing', payload },
          { assetId: quick.asset_id, payload: { ...payload, timeout_ms: 0 } },
          { assetId: quick.asset_id, payload },
        ],
        { timeoutMs: 300 },
      ),
    );
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect(settled[0]).toMatchObject({ value: { stdout: 'out:echo hi' } });
    expect(settled[4]).toMatchObject({ value: { stdout: 'out:echo hi' } });
    expect(new Set(seen).size).toBe(2);
    expect((settled[1] as PromiseRejectedResult).reason).toBeInstanceOf(AgentTimeoutError);
    expect((settled[2] as PromiseRejectedResult).reason).toBeInstanceOf(AgentOfflineError);
    expect((settled[3] as PromiseRejectedResult).reason).toMatchObject({ code: 'invalid_argument' });

    // The silent agent's answer after the timeout is taken without closing it, and it serves the next batch.
    slowAgent.send('result', { ok: true, data: execOutcome('late') }, slowId);
    slowAgent.answer = () => ({ ok: true, data: execOutcome('again') });
    const [again] = rig.gateway.requestMany('exec.run', [{ assetId: slow.asset_id, payload }]);
    await expect(again).resolves.toMatchObject({ stdout: 'again' });
    expect(rig.gateway.isConnected(slow.asset_id)).toBe(true);
  });

  it('closes the connection on a 20 MiB frame without hurting the hub, and takes the agent back after', async () => {
    const enrolled = await rig.enroll();
    const agent = await rig.agent(enrolled.credential);
    const pending = rig.gateway.request(enrolled.asset_id, 'processes.list', {});
    await agent.next((f) => f.type === 'processes.list');
    agent.ws.send(
      JSON.stringify({ v: 1, type: 'heartbeat', id: 'big', payload: { pad: 'x'.repeat(20 * 1024 * 1024) } }),
    );

    expect((await agent.closed).code).toBe(1009);
    await expect(pending).rejects.toBeInstanceOf(AgentOfflineError);
    await until(
      () => assetRow(rig, enrolled.asset_id),
      (r) => r.status === 'offline',
    );

    const again = await rig.agent(enrolled.credential);
    again.answer = () => ({ ok: true, data: { processes: [] } });
    await expect(rig.gateway.request(enrolled.asset_id, 'processes.list', {})).resolves.toEqual({
      processes: [],
    });
  });

  it.each([
    [
      'invalid JSON',
      (a: FakeAgent) => {
        a.ws.send('{"v":1,"type":');
      },
    ],
    [
      'a wrong protocol version',
      (a: FakeAgent) => {
        a.ws.send(JSON.stringify({ v: 2, type: 'heartbeat', id: 'x', payload: {} }));
      },
    ],
    [
      'an unknown frame type',
      (a: FakeAgent) => {
        a.send('exec.run', { command: 'id' });
      },
    ],
    [
      'a frame without an id',
      (a: FakeAgent) => {
        a.ws.send(JSON.stringify({ v: 1, type: 'heartbeat', payload: {} }));
      },
    ],
    [
      'a binary frame',
      (a: FakeAgent) => {
        a.ws.send(Buffer.from('{}'));
      },
    ],
    [
      'a second hello',
      (a: FakeAgent) => {
        a.send('hello', helloPayload());
      },
    ],
  ])('closes the connection with 1008 on %s', async (_name, misbehave) => {
    const enrolled = await rig.enroll();
    const agent = await rig.agent(enrolled.credential);
    misbehave(agent);
    const { code } = await agent.closed;
    expect(code).toBe(1008);
    await until(
      () => assetRow(rig, enrolled.asset_id),
      (r) => r.status === 'offline',
    );
    expect(rig.gateway.isConnected(enrolled.asset_id)).toBe(false);
  });

  it('closes with 1008 on a frame flood, a frame before hello, a bad hello, or no hello in time', async () => {
    const enrolled = await rig.enroll();

    const flood = await rig.agent(enrolled.credential);
    for (let i = 0; i < 300; i++) flood.send('heartbeat', { uptime_s: i, load1: null });
    expect((await flood.closed).code).toBe(1008);

    const early = await rig.connect(enrolled.credential);
    early.send('heartbeat', { uptime_s: 1, load1: null });
    expect((await early.closed).code).toBe(1008);

    const badHello = await rig.connect(enrolled.credential);
    badHello.send('hello', helloPayload({ hostname: 'h'.repeat(300) }));
    expect((await badHello.closed).code).toBe(1008);

    const otherProtocol = await rig.connect(enrolled.credential);
    otherProtocol.send('hello', helloPayload({ protocol: 2 }));
    expect((await otherProtocol.closed).code).toBe(1008);

    const silent = await rig.connect(enrolled.credential);
    const { code, reason } = await silent.closed;
    expect(code).toBe(1008);
    expect(reason).toContain('no hello');
    expect(rig.gateway.isConnected(enrolled.asset_id)).toBe(false);
  });

  it('keeps the base frame limit for frames outside streams, however many streams are open', async () => {
    const enrolled = await rig.enroll();
    const agent = await rig.agent(enrolled.credential);
    agent.answer = null;
    const openedIds: string[] = [];
    agent.ws.on('message', (data) => {
      const frame = JSON.parse((data as Buffer).toString('utf8')) as Received;
      if (frame.type !== 'stream.open') return;
      const id = (frame.payload as { stream: string }).stream;
      openedIds.push(id);
      agent.send('stream.opened', { stream: id, window_bytes: 65_536, info: { shell: '/bin/sh', pid: 1 } });
    });
    const streams = await Promise.all(
      [0, 1, 2].map(() =>
        rig.gateway.openStream(enrolled.asset_id, {
          kind: 'pty',
          params: { cols: 80, rows: 24 },
          onData: () => undefined,
          onClose: () => undefined,
        }),
      ),
    );
    expect(streams).toHaveLength(3);

    // Stream frames spend their stream's allowance: 600 in a second on one stream is within it.
    const [first] = openedIds;
    for (let i = 0; i < 600; i++) agent.send('stream.data', { stream: first, data: 'eA==' });
    // A few more than the base limit (200) outside streams closes the channel, open streams or not.
    for (let i = 0; i < 250; i++) agent.send('heartbeat', { uptime_s: i, load1: null });
    const { code, reason } = await agent.closed;
    expect(code).toBe(1008);
    expect(reason).toContain('outside streams');
  });

  it('passes valid metrics to the sink, drops invalid ones, and keeps the connection', async () => {
    const enrolled = await rig.enroll();
    const agent = await rig.agent(enrolled.credential);
    const sample = {
      ts: '2026-11-23T12:00:00.000Z',
      cpu_percent: 12.5,
      memory_used_bytes: 1,
      memory_total_bytes: 2,
      disk_used_bytes: 3,
      disk_total_bytes: 4,
      load1: 0.5,
      net_rx_bytes: 5,
      net_tx_bytes: 6,
    };
    agent.send('metrics', { samples: [{ ...sample, cpu_percent: -1 }] });
    agent.send('metrics', { samples: [{ ...sample, ts: 'not a time' }] });
    agent.send('metrics', { samples: [sample] });
    const mine = () => rig.samples.filter((s) => s.assetId === enrolled.asset_id);
    await until(
      () => mine().length,
      (n) => n >= 1,
    );
    expect(mine()).toEqual([{ assetId: enrolled.asset_id, samples: [sample] }]);
    expect(rig.gateway.isConnected(enrolled.asset_id)).toBe(true);
  });

  it('writes heartbeats to last_seen_at at most once a minute per asset', async () => {
    const enrolled = await rig.enroll();
    const agent = await rig.agent(enrolled.credential);
    const connectedAt = rig.t.clock.now().toISOString();

    rig.t.clock.advance(30_000);
    agent.send('heartbeat', { uptime_s: 30, load1: 0.1 });
    await new Promise((r) => setTimeout(r, 200));
    expect((await assetRow(rig, enrolled.asset_id)).last_seen_at).toBe(connectedAt);

    rig.t.clock.advance(31_000);
    agent.send('heartbeat', { uptime_s: 61, load1: 0.1 });
    const row = await until(
      () => assetRow(rig, enrolled.asset_id),
      (r) => r.last_seen_at !== connectedAt,
    );
    expect(row.last_seen_at).toBe(rig.t.clock.now().toISOString());
    expect(row.status).toBe('online');
    expect(rig.gateway.session(enrolled.asset_id)?.lastSeenAt.toISOString()).toBe(
      rig.t.clock.now().toISOString(),
    );
  });

  it('lets a second connection of the same agent replace the first, staying online', async () => {
    const enrolled = await rig.enroll();
    const first = await rig.agent(enrolled.credential);
    const second = await rig.agent(enrolled.credential);

    expect((await first.closed).code).toBe(4000);
    second.answer = () => ({ ok: true, data: { processes: [] } });
    await expect(rig.gateway.request(enrolled.asset_id, 'processes.list', {})).resolves.toEqual({
      processes: [],
    });
    await new Promise((r) => setTimeout(r, 100));
    expect((await assetRow(rig, enrolled.asset_id)).status).toBe('online');
    expect(rig.gateway.sessions().filter((x) => x.assetId === enrolled.asset_id)).toHaveLength(1);
  });

  it('lets a credential act only as its own asset, whatever its hello or results claim', async () => {
    const a = await rig.enroll('host-a');
    const b = await rig.enroll('host-b');
    const agentB = await rig.agent(b.credential, { hostname: 'host-b' });
    const bBefore = await assetRow(rig, b.asset_id);

    const agentA = await rig.connect(a.credential);
    const welcome = await agentA.hello({ hostname: 'host-b', mac_addresses: ['de:ad:be:ef:00:01'] });
    expect(welcome.payload.asset_id).toBe(a.asset_id);
    expect(await assetRow(rig, b.asset_id)).toEqual(bBefore);
    expect((await assetRow(rig, a.asset_id)).hostname).toBe('host-b');
    expect(rig.gateway.isConnected(b.asset_id)).toBe(true);

    // A result from A carrying the id of a request pending for B does not answer it.
    const forB = rig.gateway.request(b.asset_id, 'processes.list', {}, { timeoutMs: 300 });
    const sent = await agentB.next((f) => f.type === 'processes.list');
    agentA.send('result', { ok: true, data: { processes: [] } }, sent.id);
    await expect(forB).rejects.toBeInstanceOf(AgentTimeoutError);
    expect(rig.gateway.isConnected(b.asset_id)).toBe(true);
  });

  it('refuses upgrades without a valid credential, and a revoked one, and closes the connection it had', async () => {
    const enrolled = await rig.enroll();
    expect(await rig.refusedStatus(null)).toBe(401);
    expect(await rig.refusedStatus('sva_' + 'a'.repeat(52))).toBe(401);
    expect(await rig.refusedStatus('svc_abcd_' + 'a'.repeat(52))).toBe(401);
    expect(await rig.refusedStatus(`${enrolled.credential}x`)).toBe(401);

    const agent = await rig.agent(enrolled.credential);
    const waiting = await rig.connect(enrolled.credential);
    const revoked = await rig.call('DELETE', `/api/v2/agents/${enrolled.asset_id}/credential`);
    expect(revoked.status).toBe(200);
    expect(revoked.json.data).toEqual({ asset_id: enrolled.asset_id, revoked: true });
    expect((await agent.closed).code).toBe(1008);
    expect((await waiting.closed).code).toBe(1008);
    expect(await rig.refusedStatus(enrolled.credential)).toBe(401);
    await until(
      () => assetRow(rig, enrolled.asset_id),
      (r) => r.status === 'offline',
    );
    const audit = await rig.t.hub.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'agent.credential_revoked')
      .where('asset_id', '=', enrolled.asset_id)
      .execute();
    expect(audit.map((e) => e.asset_id)).toEqual([enrolled.asset_id]);
  });

  it('refuses the credential of a deleted asset', async () => {
    const enrolled = await rig.enroll();
    await rig.t.request('DELETE', `/api/v2/assets/${enrolled.asset_id}`);
    expect(await rig.refusedStatus(enrolled.credential)).toBe(401);
  });

  it('rotates the credential through the connected agent: the old one stops working, the new one connects', async () => {
    const enrolled = await rig.enroll();
    const agent = await rig.agent(enrolled.credential);
    let delivered = '';
    agent.answer = (type, payload) => {
      if (type !== 'credential.rotate') return undefined;
      delivered = payload.credential as string;
      return { ok: true, data: { saved: true } };
    };

    const res = await rig.call('POST', `/api/v2/agents/${enrolled.asset_id}/credential/rotate`);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ asset_id: enrolled.asset_id, delivered: true });
    expect(delivered).toMatch(agentCredentialPattern);
    expect(delivered).not.toBe(enrolled.credential);
    const stored = await rig.t.hub.database.db
      .selectFrom('agent_credentials')
      .selectAll()
      .where('asset_id', '=', enrolled.asset_id)
      .executeTakeFirstOrThrow();
    expect(stored.credential_hash).toBe(sha256Hex(delivered));
    expect(stored.rotated_at).toBe(rig.t.clock.now().toISOString());

    expect(await rig.refusedStatus(enrolled.credential)).toBe(401);
    const renewed = await rig.agent(delivered);
    expect(renewed.frames[0]?.payload.asset_id).toBe(enrolled.asset_id);
  });

  it('keeps the old credential when the agent does not save the new one, and refuses rotation offline', async () => {
    const enrolled = await rig.enroll('rot-host');
    const offline = await rig.call('POST', `/api/v2/agents/${enrolled.asset_id}/credential/rotate`);
    expect(offline.status).toBe(409);
    expect(offline.json).toMatchObject({
      error: 'asset_offline',
      message: `asset rot-host (${enrolled.asset_id}) is offline (last seen: never)`,
    });

    const agent = await rig.agent(enrolled.credential);
    agent.answer = () => ({ ok: true, data: { saved: false } });
    const res = await rig.call('POST', `/api/v2/agents/${enrolled.asset_id}/credential/rotate`);
    expect(res.json.data).toEqual({ asset_id: enrolled.asset_id, delivered: false });

    agent.answer = () => ({ ok: false, error: { code: 'permission_denied', message: 'read-only config' } });
    const failed = await rig.call('POST', `/api/v2/agents/${enrolled.asset_id}/credential/rotate`);
    expect(failed.status).toBe(502);
    agent.close();
    await agent.closed;
    expect(await rig.refusedStatus(enrolled.credential)).toBe(101);
  });
});

describe('agent channel limits (sqlite)', () => {
  let rig: Rig | null = null;
  afterEach(async () => {
    await rig?.close();
    rig = null;
  });

  it('terminates a connection that stops answering pings', async () => {
    rig = await compose({}, { keepaliveIntervalMs: 100 });
    const enrolled = await rig.enroll();
    const lively = await rig.agent(enrolled.credential);
    await new Promise((r) => setTimeout(r, 500));
    expect(rig.gateway.isConnected(enrolled.asset_id)).toBe(true);

    const mute = await rig.connect(enrolled.credential, { autoPong: false });
    await mute.hello();
    expect((await lively.closed).code).toBe(4000);
    const { code } = await mute.closed;
    expect(code).toBe(1006);
    expect(rig.gateway.isConnected(enrolled.asset_id)).toBe(false);
  });

  it('spreads keepalive pings over the interval instead of pinging every agent in one turn', async () => {
    rig = await compose({}, { keepaliveIntervalMs: 600 });
    const pings: number[][] = [];
    for (let i = 0; i < 6; i++) {
      const enrolled = await rig.enroll(`host-${String(i)}`);
      const agent = await rig.agent(enrolled.credential);
      const seen: number[] = [];
      agent.ws.on('ping', () => seen.push(performance.now()));
      pings.push(seen);
    }
    for (const seen of pings) seen.length = 0;
    await new Promise((r) => setTimeout(r, 1500));

    // Each agent is pinged about once per interval…
    for (const seen of pings) {
      expect(seen.length).toBeGreaterThanOrEqual(1);
      expect(seen.length).toBeLessThanOrEqual(3);
    }
    // …and not all at the same moment: a round's pings are spread over it.
    const firsts = pings.map((seen) => seen[0] ?? 0);
    expect(Math.max(...firsts) - Math.min(...firsts)).toBeGreaterThan(150);
  });

  it('refuses a request instead of queueing more when the agent does not read', async () => {
    rig = await compose({}, { maxBufferedBytes: 1024 * 1024, requestTimeoutMs: 5_000 });
    const enrolled = await rig.enroll();
    const agent = await rig.agent(enrolled.credential);
    (agent.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const data = Buffer.alloc(6 * 1024 * 1024, 7).toString('base64');
    const outcomes: unknown[] = [];
    for (let i = 0; i < 12; i++) {
      const p = rig.gateway.request(enrolled.asset_id, 'files.write', {
        path: `/tmp/f${i}`,
        data_base64: data,
        overwrite: true,
      });
      p.catch(() => undefined);
      outcomes.push(
        await Promise.race([
          p.then(
            () => 'resolved',
            (e: unknown) => e,
          ),
          new Promise((r) =>
            setTimeout(() => {
              r('pending');
            }, 30),
          ),
        ]),
      );
    }
    const refused = outcomes.filter((o) => o instanceof AgentReplyError);
    expect(refused.length).toBeGreaterThan(0);
    expect((refused[0] as AgentReplyError).message).toContain('backed up');
  });

  it('refuses an upgrade over plain HTTP from a TLS-mode hub with 403', async () => {
    rig = await compose({}, { tlsMode: 'auto' });
    const enrolled = await rig.enroll();
    expect(await rig.refusedStatus(enrolled.credential)).toBe(403);
  });

  it('takes agents in turn: one past the slots waits and is welcomed after, those past the queue get 503 with a turn each', async () => {
    const r = await compose(
      {},
      { admission: { concurrency: 1, queueLimit: 1, maxWaitMs: 60_000, minPacePerS: 0.1 } },
    );
    rig = r;
    const [a, b, c, d] = [await r.enroll('a'), await r.enroll('b'), await r.enroll('c'), await r.enroll('d')];
    // A holds the only slot from its upgrade until its welcome.
    const first = await r.connect(a.credential);
    let secondOpen = false;
    const second = r.connect(b.credential).then((agent) => {
      secondOpen = true;
      return agent;
    });
    await until(
      () => r.gateway.admissionStats(),
      (stats) => stats.inFlight === 1 && stats.queued === 1,
    );
    const refuse = (credential: string) =>
      new Promise<{ status: number; retryAfter: string | undefined; body: string }>((resolve) => {
        const ws = new WebSocket(r.url, { headers: { authorization: `Bearer ${credential}` } });
        ws.on('error', () => undefined);
        ws.once('unexpected-response', (_req, res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body });
          });
        });
      });
    const refused = await refuse(c.credential);
    // The next one refused is booked the turn after (one each 10 s, the pace assumed before one is measured).
    const next = await refuse(d.credential);
    expect(next.status).toBe(503);
    expect(next.retryAfter).toBe('20');
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe('10');
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'unavailable' });
    expect(secondOpen).toBe(false);
    // The API answers meanwhile.
    expect((await r.call('GET', '/api/v2/hub/agents')).status).toBe(200);

    await first.hello();
    const welcomed = await (await second).hello();
    expect(welcomed.payload).toMatchObject({ asset_id: b.asset_id });
    expect(r.gateway.connectedCount()).toBe(2);
    // The slot of an agent that leaves before its welcome comes back too.
    r.gateway.disconnect(b.asset_id, 'test');
    const late = await r.connect(c.credential);
    late.close();
    expect((await late.closed).code).toBe(1005);
    const again = await r.agent(c.credential);
    expect(again.frames.some((f) => f.type === 'welcome')).toBe(true);
  });

  it('welcomes a burst of agents reconnecting at once, each online with its own events', async () => {
    // Twenty hellos at once on a loaded machine: more time for each than the group's 400 ms.
    const r = await compose({}, { helloTimeoutMs: 10_000 });
    rig = r;
    const enrolled = await Promise.all(Array.from({ length: 20 }, (_, i) => r.enroll(`burst-${String(i)}`)));
    const hostname = (i: number) => `burst-${String(i)}`;
    const first = await Promise.all(enrolled.map((e) => r.connect(e.credential)));
    await Promise.all(first.map((agent, i) => agent.hello({ hostname: hostname(i) })));
    for (const agent of first) agent.close();
    await until(
      () => Promise.all(enrolled.map((e) => assetRow(r, e.asset_id))),
      (rows) => rows.every((row) => row.status === 'offline'),
    );
    r.events.length = 0;

    // The storm: all at once; a few describe the machine anew, the rest say what they said before.
    const again = await Promise.all(enrolled.map((e) => r.connect(e.credential)));
    const renamed = (i: number) => (i % 10 === 0 ? `renamed-${String(i)}` : hostname(i));
    await Promise.all(again.map((agent, i) => agent.hello({ hostname: renamed(i), agent_version: '0.2.0' })));
    expect(r.gateway.connectedCount()).toBe(20);
    for (const [i, e] of enrolled.entries()) {
      expect(await assetRow(r, e.asset_id)).toMatchObject({
        status: 'online',
        agent_version: '0.2.0',
        hostname: renamed(i),
      });
      const types = r.events.filter((ev) => ev.data.asset_ids.includes(e.asset_id)).map((ev) => ev.type);
      expect(types).toEqual(['asset.online', 'agent.connected']);
    }
  });

  it('closes every connection with 1001 on shutdown and leaves the assets offline', async () => {
    const r = await compose({});
    rig = r;
    const enrolled = await r.enroll();
    const agent = await r.agent(enrolled.credential);
    await r.gateway.close();
    expect((await agent.closed).code).toBe(1001);
    expect((await assetRow(r, enrolled.asset_id)).status).toBe('offline');
    await expect(r.gateway.request(enrolled.asset_id, 'processes.list', {})).rejects.toBeInstanceOf(
      AgentOfflineError,
    );
  });

  it('tells its agents to move in spread batches, refuses new ones, and close() ends an old agent that stayed', async () => {
    const r = await compose({});
    rig = r;
    const agents: { agent: FakeAgent; credential: string }[] = [];
    for (let i = 0; i < 5; i++) {
      const enrolled = await r.enroll(`host-${String(i)}`);
      agents.push({ agent: await r.agent(enrolled.credential), credential: enrolled.credential });
    }
    const noticed: { index: number; at: number; payload: unknown }[] = [];
    agents.forEach(({ agent }, index) => {
      void agent
        .next((f) => f.type === 'hub.moving')
        .then((frame) => {
          noticed.push({ index, at: performance.now(), payload: frame.payload });
          // The last one is an agent from before the notice: it answers `unsupported` and stays.
          if (index === 4)
            agent.send('result', { ok: false, error: { code: 'unsupported', message: 'unknown' } }, frame.id);
          else agent.close();
        });
    });
    const moving = r.gateway.tellAgentsToMove({ batchSize: 2, batchIntervalMs: 150, withinMs: 300 });
    // From the first notice on, a new agent connection is sent elsewhere.
    expect(await r.refusedStatus(agents[0]?.credential ?? '')).toBe(503);
    const outcome = await moving;
    expect(outcome).toMatchObject({ told: 5, left: 1 });
    expect(noticed.map((n) => n.payload)).toEqual(Array.from({ length: 5 }, () => ({ within_ms: 300 })));
    const times = noticed.map((n) => n.at).sort((a, b) => a - b);
    // Three batches (2, 2, 1), 150 ms apart.
    expect((times[2] ?? 0) - (times[0] ?? 0)).toBeGreaterThan(120);
    expect((times[4] ?? 0) - (times[2] ?? 0)).toBeGreaterThan(120);
    await r.gateway.close();
    expect((await agents[4]?.agent.closed)?.code).toBe(1001);
  });

  it('marks agent assets left online by a previous process offline at start, and no others', async () => {
    const r = await compose({});
    rig = r;
    const enrolled = await r.enroll();
    const manual = await r.t.createAsset({ name: 'manual' });
    const db = r.t.hub.database.db;
    await db.updateTable('assets').set({ status: 'online' }).execute();
    expect(await createAssetPresenceStore(db).markOrphansOffline(new Set(['node_live']))).toBe(1);
    expect((await assetRow(r, enrolled.asset_id)).status).toBe('offline');
    expect((await assetRow(r, manual.id)).status).toBe('online');
  });

  it("at start, leaves online the agents a live process holds and marks the dead ones' offline", async () => {
    const r = await compose({});
    rig = r;
    const held = await r.enroll('held');
    const orphan = await r.enroll('orphan');
    const dead = await r.enroll('dead');
    const db = r.t.hub.database.db;
    await db
      .updateTable('assets')
      .set({ status: 'online', agent_node: 'node_b' })
      .where('id', '=', held.asset_id)
      .execute();
    await db
      .updateTable('assets')
      .set({ status: 'online', agent_node: null })
      .where('id', '=', orphan.asset_id)
      .execute();
    await db
      .updateTable('assets')
      .set({ status: 'online', agent_node: 'node_gone' })
      .where('id', '=', dead.asset_id)
      .execute();
    expect(await createAssetPresenceStore(db).markOrphansOffline(new Set(['node_a', 'node_b']))).toBe(2);
    expect((await assetRow(r, held.asset_id)).status).toBe('online');
    expect((await assetRow(r, orphan.asset_id)).status).toBe('offline');
    expect((await assetRow(r, dead.asset_id)).status).toBe('offline');
  });

  it('writes online again, after a lost lease, exactly the agents the gateway says it holds', async () => {
    const r = await compose({});
    rig = r;
    const db = r.t.hub.database.db;
    const stillHere = (await r.enroll('still-here')).asset_id;
    const gone = (await r.enroll('gone-meanwhile')).asset_id;
    // While this process had lost its lease: another marked `stillHere` offline; `gone` disconnected here,
    // but its offline write was refused, so the database still says this node holds it.
    await db
      .updateTable('assets')
      .set({ status: 'offline', agent_node: 'node_me' })
      .where('id', '=', stillHere)
      .execute();
    await db
      .updateTable('assets')
      .set({ status: 'online', agent_node: 'node_me' })
      .where('id', '=', gone)
      .execute();
    const bus = createInProcessEventBus({ clock: r.t.clock, validate: true });
    const events: HubEvent[] = [];
    bus.subscribe((e) => events.push(e));
    const presence = createPresence({
      store: createAssetPresenceStore(db),
      clock: r.t.clock,
      events: bus,
      logger: silentLogger,
      nodeId: 'node_me',
    });

    expect(await presence.regained([stillHere])).toEqual([stillHere]);

    expect((await assetRow(r, stillHere)).status).toBe('online');
    expect((await assetRow(r, gone)).status).toBe('offline');
    expect(events.map((e) => [e.type, (e.data as { asset_id: string }).asset_id])).toEqual([
      ['asset.online', stillHere],
      ['agent.disconnected', gone],
      ['asset.offline', gone],
    ]);
  });

  it("marks a departed process's agents offline in batches, with their events, and no one else's", async () => {
    const r = await compose({});
    rig = r;
    const db = r.t.hub.database.db;
    const gone: string[] = [];
    for (let i = 0; i < 5; i++) gone.push((await r.enroll(`gone-${i}`)).asset_id);
    const kept = (await r.enroll('kept')).asset_id;
    await db
      .updateTable('assets')
      .set({ status: 'online', agent_node: 'node_gone' })
      .where('id', 'in', gone)
      .execute();
    await db
      .updateTable('assets')
      .set({ status: 'online', agent_node: 'node_other' })
      .where('id', '=', kept)
      .execute();
    const events: HubEvent[] = [];
    const bus = createInProcessEventBus({ clock: r.t.clock, validate: true });
    bus.subscribe((e) => events.push(e));
    const presence = createPresence({
      store: createAssetPresenceStore(db),
      clock: r.t.clock,
      events: bus,
      logger: silentLogger,
      nodeId: 'node_me',
      batchSize: 2,
    });

    expect(await presence.nodeGone('node_gone')).toBe(5);
    for (const id of gone) expect((await assetRow(r, id)).status).toBe('offline');
    expect((await assetRow(r, kept)).status).toBe('online');
    expect(events.filter((e) => e.type === 'asset.offline')).toHaveLength(5);
    expect(events.filter((e) => e.type === 'agent.disconnected')).toHaveLength(5);
    expect(await presence.nodeGone('node_gone')).toBe(0);
  });

  it('answers a plain GET on the channel path with a clear error', async () => {
    rig = await compose({});
    const res = await rig.call('GET', agentChannelPath);
    expect(res.status).toBe(400);
    expect(String(res.json.message)).toContain('WebSocket');
  });
});

// ---- byte budget, log bounds and failed credentials (issue 11, items 5, 14, 15) ------------------------

interface LogLine {
  msg: string;
  reason?: string;
  [key: string]: unknown;
}

function capturingLogger() {
  const lines: LogLine[] = [];
  let bytes = 0;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      lines.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  return { logger: createLogger('info', stream), lines, bytes: () => bytes };
}

/** A heartbeat padded with JSON whitespace: valid JSON, valid against the strict schema, and large. */
function paddedHeartbeat(bytes: number): string {
  const frame = JSON.stringify({ v: 1, type: 'heartbeat', id: 'pad', payload: { uptime_s: 1, load1: null } });
  return `${frame.slice(0, -1)}${' '.repeat(Math.max(0, bytes - frame.length))}}`;
}

function upgradeAnswer(url: string, credential: string | null) {
  const ws = new WebSocket(url, { headers: credential ? { authorization: `Bearer ${credential}` } : {} });
  ws.on('error', () => undefined);
  return new Promise<{ status: number; retryAfter: string | undefined }>((resolve) => {
    ws.once('open', () => {
      ws.close();
      resolve({ status: 101, retryAfter: undefined });
    });
    ws.once('unexpected-response', (_req, res) => {
      const retryAfter = res.headers['retry-after'];
      resolve({
        status: res.statusCode ?? 0,
        retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
      });
      res.resume();
    });
  });
}

const violations = (lines: LogLine[]) =>
  lines.filter((l) => l.msg === 'agent channel closed: protocol violation');

describe('agent channel budgets and refusals (sqlite)', () => {
  let rig: Rig | null = null;
  afterEach(async () => {
    await rig?.close();
    rig = null;
  });

  it('closes a 15 MiB padded heartbeat with 1008 at the default budget, and padding in unknown properties', async () => {
    const log = capturingLogger();
    rig = await compose({}, { logger: log.logger });
    const enrolled = await rig.enroll();

    const padded = await rig.agent(enrolled.credential);
    padded.ws.send(paddedHeartbeat(15 * 1024 * 1024));
    const closed = await padded.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toContain('byte budget');

    const envelope = await rig.agent((await rig.enroll()).credential);
    envelope.ws.send(
      JSON.stringify({ v: 1, type: 'heartbeat', id: 'e', payload: { uptime_s: 1, load1: null }, pad: 'x' }),
    );
    expect((await envelope.closed).code).toBe(1008);

    // A padded heartbeat payload is dropped (not stored) and the connection kept; its log lines are limited.
    const dropping = await rig.enroll();
    const payload = await rig.agent(dropping.credential);
    for (let i = 0; i < 50; i++)
      payload.send('heartbeat', { uptime_s: i, load1: null, pad: 'x'.repeat(1000) });
    await until(
      () => log.lines.filter((l) => l.msg === 'invalid agent heartbeat dropped').length,
      // Five lines a minute from this address, two of which the violations above took.
      (n) => n === 3,
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(log.lines.filter((l) => l.msg === 'invalid agent heartbeat dropped')).toHaveLength(3);
    expect(rig.gateway.isConnected(dropping.asset_id)).toBe(true);
    expect(log.bytes()).toBeLessThan(16 * 1024);
  });

  it('keeps an agent over its unasked byte budget out, logged once per connection, across reconnects', async () => {
    const log = capturingLogger();
    rig = await compose(
      {},
      {
        logger: log.logger,
        byteBudgets: createByteBudgets({ bytesPerSecond: 1024, burstBytes: 256 * 1024 }),
      },
    );
    const enrolled = await rig.enroll();
    const agent = await rig.agent(enrolled.credential);
    for (let i = 0; i < 3; i++) agent.ws.send(paddedHeartbeat(100 * 1024));
    const first = await agent.closed;
    expect(first.code).toBe(1008);
    expect(first.reason).toContain('byte budget');

    // Reconnecting does not refill the budget: the hello itself is over it.
    const again = await rig.connect(enrolled.credential);
    again.send('hello', helloPayload());
    expect((await again.closed).code).toBe(1008);
    expect(again.frames.some((f) => f.type === 'welcome')).toBe(false);

    const lines = violations(log.lines);
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => String(l.reason).includes('byte budget'))).toBe(true);
  });

  it('lets replies carry what their requests asked for: MiBs of file reads and exec output, late answers too', async () => {
    rig = await compose({});
    const enrolled = await rig.enroll();
    const id = enrolled.asset_id;
    const agent = await rig.agent(enrolled.credential);
    const file = Buffer.alloc(8 * 1024 * 1024, 7).toString('base64');
    const output = 'o'.repeat(1024 * 1024);
    agent.answer = (type, payload) =>
      type === 'files.read'
        ? { ok: true, data: { path: payload.path, size: 8 * 1024 * 1024, data_base64: file } }
        : { ok: true, data: { ...execOutcome(output), stderr: output } };

    for (let i = 0; i < 2; i++) {
      const read = (await rig.gateway.request(id, 'files.read', {
        path: '/var/big',
        max_bytes: 8 * 1024 * 1024,
      })) as { data_base64: string };
      expect(read.data_base64.length).toBe(file.length);
      const ran = (await rig.gateway.request(id, 'exec.run', {
        command: 'x',
        timeout_ms: 1000,
        max_output_bytes: 1024 * 1024,
      })) as { stdout: string };
      expect(ran.stdout.length).toBe(output.length);
    }

    // A request that timed out still pays for its answer when it comes.
    let lateId = '';
    agent.answer = (_type, _payload, requestId) => {
      lateId = requestId;
      return undefined;
    };
    await expect(
      rig.gateway.request(
        id,
        'files.read',
        { path: '/var/big', max_bytes: 8 * 1024 * 1024 },
        { timeoutMs: 100 },
      ),
    ).rejects.toBeInstanceOf(AgentTimeoutError);
    agent.send(
      'result',
      { ok: true, data: { path: '/var/big', size: 8 * 1024 * 1024, data_base64: file } },
      lateId,
    );
    agent.answer = () => ({ ok: true, data: { path: '/tmp/a' } });
    await expect(
      rig.gateway.request(id, 'files.mkdir', { path: '/tmp/a', recursive: false }),
    ).resolves.toEqual({
      path: '/tmp/a',
    });
    expect(rig.gateway.isConnected(id)).toBe(true);
  });

  it('closes an agent whose answer is larger than its request allows, or that sends MiBs nobody asked for', async () => {
    rig = await compose({});
    const big = await rig.enroll();
    const oversized = await rig.agent(big.credential);
    oversized.answer = () => ({ ok: true, data: { pid: 1, signal: 'x'.repeat(3 * 1024 * 1024) } });
    const kill = rig.gateway.request(big.asset_id, 'processes.kill', { pid: 1, signal: 'SIGTERM' });
    await expect(kill).rejects.toBeInstanceOf(AgentOfflineError);
    expect((await oversized.closed).code).toBe(1008);

    const unasked = await rig.agent((await rig.enroll()).credential);
    unasked.send('result', { ok: true, data: { pad: 'x'.repeat(3 * 1024 * 1024) } }, 'r-nobody');
    const { code, reason } = await unasked.closed;
    expect(code).toBe(1008);
    expect(reason).toContain('byte budget');
  });

  it('logs a megabyte frame version in a short line', async () => {
    const log = capturingLogger();
    rig = await compose({}, { logger: log.logger });
    const agent = await rig.agent((await rig.enroll()).credential);
    agent.ws.send(JSON.stringify({ v: 'v'.repeat(1024 * 1024), type: 'heartbeat', id: 'x', payload: {} }));
    expect((await agent.closed).code).toBe(1008);
    const [line] = violations(log.lines);
    expect(String(line?.reason)).toMatch(/^frame version "v+…\[\d+ more chars\]" is not supported/);
    expect(log.bytes()).toBeLessThan(2 * 1024);
  });

  it('refuses an address with 429 after 30 failed credentials a minute, summarizing the log; successes never count', async () => {
    const log = capturingLogger();
    let time = 1_000_000;
    const refusals = createRefusalLog({ logger: log.logger, now: () => time });
    rig = await compose(
      {},
      {
        logger: log.logger,
        refusals,
        channelFailures: createChannelFailureLimiter({ now: () => time }),
      },
    );
    const enrolled = await rig.enroll();
    // A fleet reconnecting through one address: successes are not failures.
    for (let i = 0; i < 40; i++) expect((await upgradeAnswer(rig.url, enrolled.credential)).status).toBe(101);

    const guesses: number[] = [];
    for (let i = 0; i < 40; i++) {
      guesses.push(
        (await upgradeAnswer(rig.url, `sva_${'a'.repeat(51)}${'bcdefghijk'[i % 10] ?? 'b'}`)).status,
      );
    }
    expect(guesses.slice(0, 30).every((s) => s === 401)).toBe(true);
    expect(guesses.slice(30).every((s) => s === 429)).toBe(true);
    // Refused before the credential is looked at, so a valid one from that address waits too.
    const throttled = await upgradeAnswer(rig.url, enrolled.credential);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.retryAfter)).toBeGreaterThan(0);

    const refusedLines = log.lines.filter((l) => l.msg.startsWith('agent channel'));
    expect(refusedLines).toHaveLength(5);
    expect(refusedLines[0]).toMatchObject({ reason: 'unknown or revoked', remote_address: '127.0.0.1' });

    time += 60_000;
    refusals.sweep();
    expect(log.lines.at(-1)).toMatchObject({
      msg: '36 more refusals from 127.0.0.1 in the last minute',
      kinds: { 'agent credential': 25, 'agent credential throttled': 11 },
    });
    expect((await upgradeAnswer(rig.url, enrolled.credential)).status).toBe(101);
  });
});
