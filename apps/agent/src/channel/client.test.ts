import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TLSSocket } from 'node:tls';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { Compile } from 'typebox/compile';
import {
  Hello,
  MetricsFrame,
  agentChannelPath,
  agentReconnectPolicy,
  reconnectDelay,
  type Frame,
  type ReconnectPolicy,
} from '@svc/protocol';
import { writeSettingsFile } from '../config/settings-file.js';
import { createHandlers } from '../handlers/index.js';
import { silentLogger } from '../logger.js';
import { startAgent, type RunningAgent } from '../main.js';
import { createPlatformAdapter } from '../platform/platform.js';
import { hasOpenssl, makeTestPki } from '../testing/certificates.js';
import { AgentChannel, channelUrl, type ChannelEvent } from './client.js';
import { createDispatcher } from './dispatch.js';

// ---- a tiny hub that speaks the channel ---------------------------------------------------------------

interface HubSide {
  ws: WebSocket;
  authorization: string | undefined;
  /** Over TLS: whether the agent resumed a session (no full handshake). */
  resumed: boolean;
  frames: Frame[];
  nextFrame(type: string, timeoutMs?: number): Promise<Frame>;
  send(frame: unknown): void;
  closed: Promise<{ code: number }>;
}

interface TestHub {
  url: string;
  connections: HubSide[];
  nextConnection(timeoutMs?: number): Promise<HubSide>;
  refuseWith: number | null;
  /** Headers sent with the refusal (Retry-After). */
  refuseHeaders: Record<string, string>;
  close(): Promise<void>;
}

async function startTestHub(tls?: { cert: string; key: string }): Promise<TestHub> {
  const server = tls ? https.createServer({ cert: tls.cert, key: tls.key }) : http.createServer();
  const hub: TestHub = {
    url: '',
    connections: [],
    refuseWith: null,
    refuseHeaders: {},
    nextConnection: () => Promise.reject(new Error('not started')),
    close: async () => {
      for (const c of hub.connections) c.ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const wss = new WebSocketServer({
    server,
    path: agentChannelPath,
    verifyClient: (_info, done) => {
      if (hub.refuseWith) done(false, hub.refuseWith, 'refused', hub.refuseHeaders);
      else done(true);
    },
  });
  const waiting: ((side: HubSide) => void)[] = [];
  wss.on('connection', (ws, request) => {
    const frames: Frame[] = [];
    const frameWaiters: { type: string; resolve: (f: Frame) => void }[] = [];
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as Frame;
      const waiter = frameWaiters.find((w) => w.type === frame.type);
      if (waiter) {
        frameWaiters.splice(frameWaiters.indexOf(waiter), 1);
        waiter.resolve(frame);
      } else {
        frames.push(frame);
      }
    });
    const side: HubSide = {
      ws,
      authorization: request.headers.authorization,
      resumed: request.socket instanceof TLSSocket && request.socket.isSessionReused(),
      frames,
      send: (frame) => {
        ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
      },
      nextFrame: (type, timeoutMs = 5_000) => {
        const index = frames.findIndex((f) => f.type === type);
        if (index >= 0) return Promise.resolve(frames.splice(index, 1)[0]!);
        return withTimeout(
          new Promise((resolve) => frameWaiters.push({ type, resolve })),
          timeoutMs,
          `${type} frame`,
        );
      },
      closed: new Promise((resolve) => {
        ws.on('close', (code) => {
          resolve({ code });
        });
      }),
    };
    hub.connections.push(side);
    const next = waiting.shift();
    if (next) next(side);
  });
  let seen = 0;
  hub.nextConnection = (timeoutMs = 5_000) => {
    const existing = hub.connections[seen];
    if (existing) {
      seen += 1;
      return Promise.resolve(existing);
    }
    return withTimeout(
      new Promise<HubSide>((resolve) =>
        waiting.push((side) => {
          seen += 1;
          resolve(side);
        }),
      ),
      timeoutMs,
      'agent connection',
    );
  };
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  hub.url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return hub;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`timed out waiting for ${what}`));
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

const welcome = (id = 'w1') => ({
  v: 1,
  type: 'welcome',
  id,
  payload: { asset_id: 'ast_test', heartbeat_interval_s: 30, collect_interval_s: 10 },
});
const fastBackoff: Partial<ReconnectPolicy> = { baseMs: 40, capMs: 400, minMs: 5 };
const checkHello = Compile(Hello);

// ---- the agent side -------------------------------------------------------------------------------------

let hub: TestHub;
let channels: AgentChannel[] = [];
let events: ChannelEvent[] = [];

function makeChannel(overrides: Partial<ConstructorParameters<typeof AgentChannel>[0]> = {}): AgentChannel {
  const platform = createPlatformAdapter('linux', { allowPowerActions: () => false });
  const handlers = createHandlers({ platform, saveCredential: () => Promise.resolve() });
  const channel = new AgentChannel({
    hubUrl: hub.url,
    getCredential: () => 'sva_testcredential',
    caPem: null,
    hello: () =>
      Promise.resolve({
        agent_version: '0.1.0',
        protocol: 1,
        hostname: 'test-host',
        platform: 'linux',
        os_release: 'Test OS',
        arch: 'x64',
        ip_addresses: ['192.0.2.1'],
        mac_addresses: ['aa:bb:cc:dd:ee:ff'],
        capabilities: ['exec'],
        low_power: false,
      }),
    heartbeat: () => ({ uptime_s: 1, load1: 0.1 }),
    dispatch: createDispatcher(handlers, silentLogger),
    heartbeatIntervalS: 30,
    logger: silentLogger,
    backoff: fastBackoff,
    random: () => 0.5,
    onEvent: (event) => events.push(event),
    ...overrides,
  });
  channels.push(channel);
  return channel;
}

async function welcomed(): Promise<HubSide> {
  const side = await hub.nextConnection();
  await side.nextFrame('hello');
  side.send(welcome());
  await waitFor(() => events.some((e) => e.type === 'welcome'));
  return side;
}

async function waitFor(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeEach(async () => {
  hub = await startTestHub();
  events = [];
});

afterEach(async () => {
  await Promise.all(channels.map((c) => c.stop()));
  channels = [];
  await hub.close();
});

describe('connecting', () => {
  it('builds the channel URL, and refuses plain http to anything but loopback', () => {
    expect(channelUrl('https://hub.example.net:8443')).toBe(
      'wss://hub.example.net:8443/api/v1/agent/channel',
    );
    expect(channelUrl('https://example.net/svc/')).toBe('wss://example.net/svc/api/v1/agent/channel');
    expect(channelUrl('http://127.0.0.1:8080')).toBe('ws://127.0.0.1:8080/api/v1/agent/channel');
    expect(channelUrl('http://[::1]:8080')).toBe('ws://[::1]:8080/api/v1/agent/channel');
    expect(() => channelUrl('http://hub.example.net:8080')).toThrow(/plain HTTP/);
  });

  it('presents its credential and sends a hello that matches the catalog', async () => {
    makeChannel().start();
    const side = await hub.nextConnection();
    const hello = await side.nextFrame('hello');
    expect(side.authorization).toBe('Bearer sva_testcredential');
    expect(hello.v).toBe(1);
    expect(hello.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(checkHello.Check(hello.payload)).toBe(true);
    expect(hello.payload).toMatchObject({ hostname: 'test-host', platform: 'linux', protocol: 1 });
  });

  it('answers no request before the welcome: it closes instead', async () => {
    makeChannel().start();
    const side = await hub.nextConnection();
    await side.nextFrame('hello');
    side.send({
      v: 1,
      type: 'exec.run',
      id: 'r1',
      payload: { command: 'echo hi', timeout_ms: 1000, max_output_bytes: 100 },
    });
    expect((await side.closed).code).toBe(1008);
    expect(side.frames.filter((f) => f.type === 'result')).toEqual([]);
  });
});

describe('requests', () => {
  it('dispatches a request and answers with a result frame of the same id', async () => {
    makeChannel().start();
    const side = await welcomed();
    side.send({
      v: 1,
      type: 'exec.run',
      id: 'req-1',
      payload: { command: 'echo hi; exit 2', timeout_ms: 5000, max_output_bytes: 1000 },
    });
    const result = await side.nextFrame('result');
    expect(result).toMatchObject({
      v: 1,
      type: 'result',
      id: 'req-1',
      payload: { ok: true, data: { stdout: 'hi\n', exit_code: 2, timed_out: false } },
    });
  });

  it('answers a payload that breaks the catalog with invalid_argument, and runs nothing', async () => {
    makeChannel().start();
    const side = await welcomed();
    side.send({
      v: 1,
      type: 'exec.run',
      id: 'bad-1',
      payload: { command: 'touch /tmp/should-not-exist', timeout_ms: -1, max_output_bytes: 10 },
    });
    const result = await side.nextFrame('result');
    expect(result).toMatchObject({
      id: 'bad-1',
      payload: { ok: false, error: { code: 'invalid_argument' } },
    });
  });

  it('answers an unknown request type with unsupported', async () => {
    makeChannel().start();
    const side = await welcomed();
    side.send({ v: 1, type: 'files.teleport', id: 'u-1', payload: {} });
    expect(await side.nextFrame('result')).toMatchObject({
      id: 'u-1',
      payload: { ok: false, error: { code: 'unsupported' } },
    });
  });

  it('passes handler errors through with their code (power is disabled on test agents)', async () => {
    makeChannel().start();
    const side = await welcomed();
    side.send({ v: 1, type: 'power.reboot', id: 'p-1', payload: {} });
    expect(await side.nextFrame('result')).toMatchObject({
      id: 'p-1',
      payload: {
        ok: false,
        error: { code: 'unsupported', message: 'power actions are disabled on this agent' },
      },
    });
  });

  it('sends heartbeats at the interval the hub asks for when it is shorter', async () => {
    makeChannel().start();
    const side = await hub.nextConnection();
    await side.nextFrame('hello');
    side.send({
      v: 1,
      type: 'welcome',
      id: 'w',
      payload: { asset_id: 'ast_test', heartbeat_interval_s: 1, collect_interval_s: 10 },
    });
    const heartbeat = await side.nextFrame('heartbeat', 3_000);
    expect(heartbeat.payload).toEqual({ uptime_s: 1, load1: 0.1 });
  });
});

describe('hostile or broken hub frames', () => {
  const cases: { name: string; frame: string | Buffer; code: number }[] = [
    { name: 'not JSON', frame: '{"v":1,', code: 1007 },
    {
      name: 'missing the envelope fields',
      frame: JSON.stringify({ type: 'exec.run', payload: {} }),
      code: 1008,
    },
    {
      name: 'a wrong protocol version',
      frame: JSON.stringify({ v: 2, type: 'exec.run', id: 'x', payload: {} }),
      code: 1008,
    },
    {
      name: 'an oversized id',
      frame: JSON.stringify({ v: 1, type: 'exec.run', id: 'x'.repeat(65), payload: {} }),
      code: 1008,
    },
    { name: 'a binary frame', frame: Buffer.from([1, 2, 3]), code: 1003 },
  ];
  for (const c of cases) {
    it(`closes on ${c.name}, then reconnects`, async () => {
      makeChannel().start();
      const side = await welcomed();
      side.ws.send(c.frame);
      expect((await side.closed).code).toBe(c.code);
      expect(events.some((e) => e.type === 'protocol_error')).toBe(true);
      const again = await hub.nextConnection();
      expect((await again.nextFrame('hello')).type).toBe('hello');
    });
  }

  it('closes on a welcome that does not match the catalog', async () => {
    makeChannel().start();
    const side = await hub.nextConnection();
    await side.nextFrame('hello');
    side.send({ v: 1, type: 'welcome', id: 'w', payload: { asset_id: 'ast_x', heartbeat_interval_s: 0 } });
    expect((await side.closed).code).toBe(1008);
    expect(events.some((e) => e.type === 'welcome')).toBe(false);
  });

  it('closes when no welcome comes in time', async () => {
    makeChannel({ welcomeTimeoutMs: 200 }).start();
    const side = await hub.nextConnection();
    expect((await side.closed).code).toBe(1008);
  });
});

describe('reconnecting', () => {
  it('reconnects after the hub drops it, with capped jittered backoff, and resets after a welcome', async () => {
    hub.refuseWith = 503;
    makeChannel().start();
    await waitFor(() => events.filter((e) => e.type === 'reconnect_scheduled').length >= 4);
    const delays = events.flatMap((e) => (e.type === 'reconnect_scheduled' ? [[e.attempt, e.delayMs]] : []));
    const policy = { ...agentReconnectPolicy, ...fastBackoff };
    expect(delays.slice(0, 4)).toEqual(
      [0, 1, 2, 3].map((attempt) => [attempt, reconnectDelay(attempt, null, () => 0.5, policy)]),
    );
    expect(hub.connections).toEqual([]);

    hub.refuseWith = null;
    const side = await welcomed();
    events = [];
    side.ws.terminate(); // the hub goes away without a close frame
    const again = await hub.nextConnection();
    await again.nextFrame('hello');
    expect(events.find((e) => e.type === 'reconnect_scheduled')).toEqual({
      type: 'reconnect_scheduled',
      attempt: 0,
      delayMs: reconnectDelay(0, 0, () => 0.5, policy),
    });
  });

  it('retries a hub it just had within the short ceiling while it is down, and backs off a busy one', async () => {
    const backoff = { baseMs: 40, capMs: 5_000, recentCapMs: 60, minMs: 5 };
    const scheduled = () => events.flatMap((e) => (e.type === 'reconnect_scheduled' ? [e.delayMs] : []));
    // Never connected and refused 503: the ceiling doubles from the base towards the long cap.
    hub.refuseWith = 503;
    makeChannel({ backoff, random: () => 0.999 }).start();
    await waitFor(() => scheduled().length >= 4);
    expect(scheduled().slice(0, 4)).toEqual([39, 79, 159, 319]);
    await channels[0]?.stop();
    channels = [];

    // Lost a moment ago and nothing listens there (a restart): never more than the short ceiling behind it.
    const gone = await startTestHub();
    events = [];
    makeChannel({ hubUrl: gone.url, backoff, random: () => 0.999 }).start();
    const side = await gone.nextConnection();
    await side.nextFrame('hello');
    side.send(welcome());
    await waitFor(() => events.some((e) => e.type === 'welcome'));
    await gone.close();
    await waitFor(() => scheduled().length >= 4);
    expect(scheduled().slice(0, 4)).toEqual([39, 59, 59, 59]);
    await channels[0]?.stop();
    channels = [];

    // Lost a moment ago, and the hub answers but is busy (503): it backs off from the base, long cap.
    events = [];
    hub.refuseWith = null;
    makeChannel({ backoff, random: () => 0.999 }).start();
    const again = await welcomed();
    hub.refuseWith = 503;
    again.ws.terminate();
    await waitFor(() => scheduled().length >= 4);
    expect(scheduled().slice(0, 4)).toEqual([39, 39, 79, 159]);
  });

  it('comes back when a busy hub says in Retry-After, spread over that second, without growing its backoff', async () => {
    const scheduled = () =>
      events.flatMap((e) => (e.type === 'reconnect_scheduled' ? [[e.attempt, e.delayMs]] : []));
    hub.refuseWith = 503;
    hub.refuseHeaders = { 'Retry-After': '7' };
    const channel = makeChannel({ random: () => 0.25 });
    channel.start();
    await waitFor(() => scheduled().length >= 1);
    expect(scheduled()[0]).toEqual([0, 7_250]);
    expect(events).toContainEqual({ type: 'error', message: 'Unexpected server response: 503' });
    await channel.stop();
    channels = [];

    // A Retry-After past the policy's bound is cut to it.
    events = [];
    hub.refuseHeaders = { 'Retry-After': '86400' };
    makeChannel({ random: () => 0.25 }).start();
    await waitFor(() => scheduled().length >= 1);
    expect(scheduled()[0]).toEqual([0, agentReconnectPolicy.retryAfterCapMs]);
  });

  it('stops reconnecting once stopped', async () => {
    const channel = makeChannel();
    channel.start();
    await welcomed();
    await channel.stop();
    const before = hub.connections.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hub.connections.length).toBe(before);
  });
});

describe('several hub addresses and hub.moving (decision 0055)', () => {
  /** A backoff this slow would show: every move below happens well within it. */
  const slowBackoff: Partial<ReconnectPolicy> = {
    baseMs: 10_000,
    capMs: 10_000,
    recentCapMs: 10_000,
    minMs: 5,
  };
  /** Nothing listens on port 1 of loopback: a connect there fails at once. */
  const deadHub = 'http://127.0.0.1:1';
  let other: TestHub;

  beforeEach(async () => {
    other = await startTestHub();
  });

  afterEach(async () => {
    await Promise.all(channels.map((c) => c.stop()));
    channels = [];
    await other.close();
  });

  async function welcomedOn(testHub: TestHub): Promise<HubSide> {
    const side = await testHub.nextConnection();
    await side.nextFrame('hello');
    const before = events.filter((e) => e.type === 'welcome').length;
    side.send(welcome());
    await waitFor(() => events.filter((e) => e.type === 'welcome').length > before);
    return side;
  }

  const delays = () => events.flatMap((e) => (e.type === 'reconnect_scheduled' ? [e.delayMs] : []));
  const tried = () => events.flatMap((e) => (e.type === 'connecting' ? [e.hubUrl] : []));

  it('moves to the next address at once when its hub is lost, not after the backoff', async () => {
    const channel = makeChannel({ hubUrls: [other.url], backoff: slowBackoff });
    channel.start();
    const first = await welcomedOn(hub);
    first.ws.terminate(); // the process died
    const started = Date.now();
    await welcomedOn(other);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(tried()).toEqual([hub.url, other.url]);
    // random() = 0.5: the minimum plus half of the 400 ms spread.
    expect(delays()).toEqual([5 + 200]);
    expect(channel.hubUrl).toBe(other.url);
  });

  it('tries every address of a round before the backoff, and starts the next round where it left', async () => {
    other.refuseWith = 503;
    const channel = makeChannel({ hubUrl: deadHub, hubUrls: [other.url], backoff: slowBackoff });
    channel.start();
    await waitFor(() => delays().length >= 2);
    await channel.stop();
    expect(tried().slice(0, 2)).toEqual([deadHub, other.url]);
    // The dead address, then the refusing one: a round failed, so the backoff (0.5 × 10 s).
    expect(delays().slice(0, 2)).toEqual([5 + 200, 5_000]);
    expect(channel.hubUrl).toBe(deadHub);
  });

  it('on hub.moving closes after the random delay it allows and reconnects without the backoff', async () => {
    const channel = makeChannel({ hubUrls: [other.url], backoff: slowBackoff });
    channel.start();
    const first = await welcomedOn(hub);
    const asked = Date.now();
    first.send({ v: 1, type: 'hub.moving', id: 'm1', payload: { within_ms: 600 } });
    expect((await first.closed).code).toBe(1000);
    // random() = 0.5 of the 600 ms allowed.
    expect(Date.now() - asked).toBeGreaterThanOrEqual(290);
    await welcomedOn(other);
    expect(events).toContainEqual({ type: 'moving', delayMs: 300 });
    expect(delays()).toEqual([0]);
    // No result answers the notice: it is no request.
    expect(first.frames.filter((f) => f.type === 'result')).toEqual([]);
  });

  it('behind a balancer (one address) reconnects to it at once on hub.moving', async () => {
    makeChannel({ backoff: slowBackoff, random: () => 0 }).start();
    const first = await welcomedOn(hub);
    first.send({ v: 1, type: 'hub.moving', id: 'm1', payload: { within_ms: 2_000 } });
    await first.closed;
    await welcomedOn(hub);
    expect(delays()).toEqual([0]);
  });

  it('closes on a hub.moving that breaks the catalog (1008)', async () => {
    makeChannel().start();
    const first = await welcomedOn(hub);
    first.send({ v: 1, type: 'hub.moving', id: 'm1', payload: { within_ms: 60_000 } });
    expect((await first.closed).code).toBe(1008);
    expect(events.some((e) => e.type === 'protocol_error' && e.message.includes('hub.moving'))).toBe(true);
  });
});

describe('TLS', () => {
  it.skipIf(!hasOpenssl())(
    'verifies the hub against the saved CA and refuses a hub its CA did not sign',
    async () => {
      const pki = makeTestPki();
      const tlsHub = await startTestHub({ cert: pki.serverCert, key: pki.serverKey });
      const previous = hub;
      hub = tlsHub;
      try {
        const trusted = makeChannel({ caPem: pki.caCert });
        trusted.start();
        await welcomed();
        await trusted.stop();

        events = [];
        makeChannel({ caPem: pki.leafOnlyCert }).start();
        await waitFor(() => events.some((e) => e.type === 'reconnect_scheduled'));
        expect(events.find((e) => e.type === 'error')).toMatchObject({
          message: expect.stringMatching(/certificate|self.signed|verify/i) as unknown,
        });
        expect(tlsHub.connections.length).toBe(1); // only the trusted agent got through
      } finally {
        await Promise.all(channels.map((c) => c.stop()));
        channels = [];
        await tlsHub.close();
        hub = previous;
      }
    },
  );

  it.skipIf(!hasOpenssl())(
    'offers the session the hub gave it when it reconnects, and the hub resumes it',
    async () => {
      const pki = makeTestPki();
      const tlsHub = await startTestHub({ cert: pki.serverCert, key: pki.serverKey });
      const previous = hub;
      hub = tlsHub;
      try {
        makeChannel({ caPem: pki.caCert }).start();
        const first = await welcomed();
        expect(first.resumed).toBe(false);
        expect(events).toContainEqual({ type: 'tls', resumed: false });

        events = [];
        first.ws.terminate(); // the connection is lost: the agent reconnects by itself
        const second = await welcomed();
        expect(second.resumed).toBe(true);
        expect(events).toContainEqual({ type: 'tls', resumed: true });
      } finally {
        await Promise.all(channels.map((c) => c.stop()));
        channels = [];
        await tlsHub.close();
        hub = previous;
      }
    },
  );
});

describe('the whole agent (startAgent)', () => {
  let dir: string;
  let agent: RunningAgent | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'svc-agent-run-'));
  });
  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('persists a rotated credential before answering, and uses it on the next connection', async () => {
    const configPath = path.join(dir, 'settings.json');
    const oldCredential = `sva_${'a'.repeat(52)}`;
    const newCredential = `sva_${'b'.repeat(52)}`;
    await writeSettingsFile(configPath, {
      hub_url: hub.url,
      asset_id: 'ast_test',
      credential: oldCredential,
      allow_power_actions: false,
    });
    agent = await startAgent({ configPath, env: {}, logger: silentLogger, onEvent: (e) => events.push(e) });
    const side = await welcomed();
    expect(side.authorization).toBe(`Bearer ${oldCredential}`);

    side.send({ v: 1, type: 'credential.rotate', id: 'rot-1', payload: { credential: newCredential } });
    const result = await side.nextFrame('result');
    expect(result).toMatchObject({ id: 'rot-1', payload: { ok: true, data: { saved: true } } });
    const saved = JSON.parse(await readFile(configPath, 'utf8')) as Record<string, unknown>;
    expect(saved).toMatchObject({ credential: newCredential, hub_url: hub.url, asset_id: 'ast_test' });

    side.ws.terminate();
    const again = await hub.nextConnection();
    expect(again.authorization).toBe(`Bearer ${newCredential}`);
  });

  it('refuses a rotated credential in the wrong format and keeps the old one', async () => {
    const configPath = path.join(dir, 'settings.json');
    const oldCredential = `sva_${'a'.repeat(52)}`;
    await writeSettingsFile(configPath, {
      hub_url: hub.url,
      credential: oldCredential,
      allow_power_actions: false,
    });
    agent = await startAgent({ configPath, env: {}, logger: silentLogger, onEvent: (e) => events.push(e) });
    const side = await welcomed();
    side.send({
      v: 1,
      type: 'credential.rotate',
      id: 'rot-2',
      payload: { credential: 'svc_not_an_agent_credential_at_all' },
    });
    expect(await side.nextFrame('result')).toMatchObject({
      payload: { ok: false, error: { code: 'invalid_argument' } },
    });
    expect(JSON.parse(await readFile(configPath, 'utf8'))).toMatchObject({ credential: oldCredential });
  });

  it('sends metrics collected before the welcome once welcomed', async () => {
    const configPath = path.join(dir, 'settings.json');
    await writeSettingsFile(configPath, {
      hub_url: hub.url,
      credential: `sva_${'a'.repeat(52)}`,
      allow_power_actions: false,
    });
    agent = await startAgent({ configPath, env: {}, logger: silentLogger, onEvent: (e) => events.push(e) });
    const side = await hub.nextConnection();
    const hello = await side.nextFrame('hello');
    expect(checkHello.Check(hello.payload)).toBe(true);
    expect(hello.payload).toMatchObject({ hostname: os.hostname(), platform: 'linux', low_power: false });
    side.send(welcome());
    const metrics = await side.nextFrame('metrics');
    expect(Compile(MetricsFrame).Check(metrics.payload)).toBe(true);
  });

  it('will not start without an enrollment', async () => {
    await expect(
      startAgent({ configPath: path.join(dir, 'none.json'), env: {}, logger: silentLogger }),
    ).rejects.toThrow(/not enrolled/);
  });
});
