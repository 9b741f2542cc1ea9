/**
 * Agents across hub processes (decision 0039): three "processes" in one test, each a real WebSocket gateway
 * on its own loopback port with its own presence, joined by cluster gateways on one in-memory cluster
 * network, over one hub database. Fake agents connect to one process; the others reach them through it.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentChannelPath } from '@svc/protocol';
import {
  databaseTargets,
  echoExec,
  FakeAgent,
  provisionAgents,
  startTestHub,
  type FakeHandlers,
  type SimulatedAgentIdentity,
  type TestHub,
} from '@svc/testkit';
import { systemOwnerContext } from '../access/principal.js';
import {
  createMemoryClusterNetwork,
  type ClusterBus,
  type MemoryClusterNetwork,
} from '../platform/cluster/cluster-bus.js';
import { createNatsClusterBus } from '../platform/cluster/nats-bus.js';
import { createInProcessEventBus, type HubEvent } from '../platform/event-bus.js';
import { silentLogger } from '../platform/logger.js';
import { createExecService } from '../modules/exec/exec.service.js';
import { FakeNodeRegistries } from '../testing/fake-node-registry.js';
import { startTestNatsServer } from '../testing/nats-server.js';
import { createAgentCaller } from './agent-call.js';
import { createAssetReads } from '../modules/assets/asset-reads.service.js';
import { createAssetPresenceStore } from '../modules/assets/asset-presence.service.js';
import {
  AgentOfflineError,
  ClusterUnavailableCallError,
  AgentReplyError,
  AgentTimeoutError,
  type AgentStreamHandle,
  type StreamEnd,
} from './agent-gateway.js';
import { createChannelAuthenticator } from './channel-auth.js';
import { createClusterGateway, type ClusterAgentGateway } from './cluster-gateway.js';
import { createAgentGateway } from './gateway.js';
import { createPresence } from './presence.js';

interface Node {
  id: string;
  bus: ClusterBus;
  gateway: ClusterAgentGateway;
  url: string;
  server: http.Server;
  closed: boolean;
}

/** Polls a condition, bounded in count and time (these are integration steps across async hops). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.each(databaseTargets())('agents across hub processes ($name)', ({ options }) => {
  let t: TestHub;
  let network: MemoryClusterNetwork;
  let cluster: FakeNodeRegistries;
  let events: HubEvent[];
  let nodes: Node[];
  let agents: FakeAgent[];
  let ids: SimulatedAgentIdentity[];

  async function startNode(
    name: string,
    options: { bus?: ClusterBus; viewFlushMs?: number } = {},
  ): Promise<Node> {
    const db = t.hub.database.db;
    const bus = options.bus ?? network.join(`node_${name}`);
    const registry = cluster.registry(bus.nodeId);
    await registry.start();
    const eventBus = createInProcessEventBus({ clock: t.clock, validate: true });
    eventBus.subscribe((e) => events.push(e));
    const presence = createPresence({
      store: createAssetPresenceStore(db),
      clock: t.clock,
      events: eventBus,
      logger: silentLogger,
      nodeId: bus.nodeId,
    });
    const readiness = { changed: (_id: string): void => undefined };
    const local = createAgentGateway({
      clock: t.clock,
      logger: silentLogger,
      events: eventBus,
      metrics: { add: () => undefined },
      presence,
      authenticate: createChannelAuthenticator({
        db,
        tlsMode: t.config.tlsMode,
        trustedProxies: t.config.trustedProxies,
        logger: silentLogger,
      }),
      heartbeatIntervalS: 30,
      collectIntervalS: 60,
      requestTimeoutMs: 3_000,
      tickMs: 50,
      presenceFlushMs: 50,
      onReadinessChange: (id) => {
        readiness.changed(id);
      },
    });
    const gateway = createClusterGateway({
      local,
      bus,
      registry,
      presence,
      logger: silentLogger,
      viewFlushMs: options.viewFlushMs ?? 20,
      sweepMs: 50,
      marginMs: 500,
    });
    readiness.changed = (id) => {
      gateway.readinessChanged(id);
    };
    await gateway.start();
    const server = http.createServer((_req, res) => {
      res.statusCode = 404;
      res.end();
    });
    server.on('upgrade', (req: http.IncomingMessage, socket, head: Buffer) => {
      gateway.handleUpgrade(req, socket, head);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}${agentChannelPath}`;
    const node: Node = { id: bus.nodeId, bus, gateway, url, server, closed: false };
    nodes.push(node);
    return node;
  }

  async function stopNode(node: Node): Promise<void> {
    if (node.closed) return;
    node.closed = true;
    await node.gateway.close();
    await node.bus.close();
    await new Promise<void>((resolve) => {
      node.server.close(() => {
        resolve();
      });
    });
  }

  async function connect(
    node: Node,
    identity: SimulatedAgentIdentity,
    handlers: FakeHandlers = { 'exec.run': echoExec },
  ): Promise<FakeAgent> {
    const agent = new FakeAgent({ url: node.url, credential: identity.credential, handlers, terminal: true });
    agents.push(agent);
    await agent.start();
    return agent;
  }

  async function statusOf(assetId: string): Promise<string> {
    const row = await t.hub.database.db
      .selectFrom('assets')
      .select('status')
      .where('id', '=', assetId)
      .executeTakeFirstOrThrow();
    return row.status;
  }

  const execPayload = { command: 'uptime', timeout_ms: 2_000, max_output_bytes: 1024 };

  beforeEach(async () => {
    t = await startTestHub(options);
    network = createMemoryClusterNetwork();
    cluster = new FakeNodeRegistries();
    events = [];
    nodes = [];
    agents = [];
    ids = await provisionAgents(t.hub, 4, 'cl');
  });

  afterEach(async () => {
    for (const agent of agents) agent.close();
    for (const node of nodes) await stopNode(node);
    await t.close();
  });

  it('answers a request for an agent another process holds, and shows it in every view', async () => {
    const [a, b] = [await startNode('a'), await startNode('b')];
    const agent = ids[0]!;
    await connect(a, agent);
    await until(() => b.gateway.isConnected(agent.assetId), 'the view on b');
    expect(b.gateway.session(agent.assetId)?.hello.hostname).toBe('fake-host');
    expect(b.gateway.sessions().map((s) => s.assetId)).toEqual([agent.assetId]);
    expect(b.gateway.connectedCount()).toBe(1);
    expect(a.gateway.connectedCount()).toBe(1);

    const result = await b.gateway.request(agent.assetId, 'exec.run', execPayload);
    expect(result.stdout).toBe('uptime\n');
    expect(result.exit_code).toBe(0);
  });

  it('rethrows each error kind as a local call would', async () => {
    const [a, b] = [await startNode('a'), await startNode('b')];
    const agent = ids[0]!;
    await connect(a, agent, {
      'exec.run': () => ({ error: { code: 'permission_denied', message: 'not allowed here' } }),
      // Never answers: the caller times out.
      'processes.list': () => new Promise(() => undefined),
    });
    await until(() => b.gateway.isConnected(agent.assetId), 'the view on b');

    const replied = b.gateway.request(agent.assetId, 'exec.run', execPayload);
    await expect(replied).rejects.toBeInstanceOf(AgentReplyError);
    await expect(replied).rejects.toMatchObject({ code: 'permission_denied', message: 'not allowed here' });

    await expect(
      b.gateway.request(agent.assetId, 'processes.list', {}, { timeoutMs: 200 }),
    ).rejects.toBeInstanceOf(AgentTimeoutError);

    // The agent has no handler: it answers unsupported.
    await expect(b.gateway.request(agent.assetId, 'services.list', {})).rejects.toMatchObject({
      code: 'unsupported',
    });

    // A payload the catalog refuses never leaves the caller's process.
    await expect(
      b.gateway.request(agent.assetId, 'exec.run', { command: '' } as never),
    ).rejects.toMatchObject({ code: 'invalid_argument' });

    await expect(b.gateway.request(ids[1]!.assetId, 'exec.run', execPayload)).rejects.toBeInstanceOf(
      AgentOfflineError,
    );

    // The bus is down: the agent cannot be reached from here now, which is not offline (decision 0054).
    network.setDown(true);
    await expect(b.gateway.request(agent.assetId, 'exec.run', execPayload)).rejects.toBeInstanceOf(
      ClusterUnavailableCallError,
    );
    network.setDown(false);
    await expect(b.gateway.request(agent.assetId, 'exec.run', execPayload)).rejects.toMatchObject({
      code: 'permission_denied',
    });
  });

  it('retries a request once on the new holder when the agent moved a moment before', async () => {
    // The holders tell the others of a change only every 400 ms: b's view is stale for that long.
    const a = await startNode('a', { viewFlushMs: 400 });
    const b = await startNode('b');
    const c = await startNode('c', { viewFlushMs: 400 });
    const agent = ids[0]!;
    let runs = 0;
    const counted: FakeHandlers = {
      'exec.run': (payload) => {
        runs += 1;
        return echoExec(payload);
      },
    };
    const first = await connect(a, agent, counted);
    await until(() => b.gateway.isConnected(agent.assetId), 'the view on b');
    first.close();
    await first.closed();
    await until(() => !a.gateway.isConnected(agent.assetId), 'a lets the agent go');
    await connect(c, agent, counted);
    await until(() => c.gateway.isConnected(agent.assetId), 'the agent on c');
    // b still routes to a, which answers that it does not hold the agent; b finds c in its view and asks it.
    expect(b.gateway.isConnected(agent.assetId)).toBe(true);
    const result = await b.gateway.request(agent.assetId, 'exec.run', execPayload);
    expect(result.stdout).toBe('uptime\n');
    expect(runs).toBe(1);
  });

  it('never sends again a request that may have reached the agent', async () => {
    const [a, b, c] = [await startNode('a'), await startNode('b'), await startNode('c')];
    const agent = ids[0]!;
    let runsOnA = 0;
    let runsOnC = 0;
    const first = await connect(a, agent, {
      'exec.run': () => {
        runsOnA += 1;
        return new Promise(() => undefined);
      },
    });
    await until(() => b.gateway.isConnected(agent.assetId), 'the view on b');
    const asked = b.gateway
      .request(agent.assetId, 'exec.run', execPayload, { timeoutMs: 10_000 })
      .catch((error: unknown) => error);
    await until(() => runsOnA === 1, 'the exec on a');
    // The agent moves while its exec runs: a's call ends offline, and the exec is not sent to c.
    await connect(c, agent, {
      'exec.run': (payload) => {
        runsOnC += 1;
        return echoExec(payload);
      },
    });
    first.close();
    expect(await asked).toBeInstanceOf(AgentOfflineError);
    await until(() => b.gateway.isConnected(agent.assetId), 'the view on b');
    expect(runsOnC).toBe(0);
  });

  it('writes a file of a few MiB to an agent another process holds, over NATS with a 64 KiB max_payload', async () => {
    const nats = await startTestNatsServer({ maxPayload: 65_536 });
    try {
      const key = randomBytes(32);
      const buses = ['a', 'b'].map((name) =>
        createNatsClusterBus({ url: nats.url, nodeId: `node_${name}`, keys: [key], logger: silentLogger }),
      );
      await until(() => buses.every((bus) => bus.status().connected), 'connected to NATS');
      const a = await startNode('a', { bus: buses[0]! });
      const b = await startNode('b', { bus: buses[1]! });
      const written: Buffer[] = [];
      const agent = ids[0]!;
      await connect(a, agent, {
        'files.write': (payload) => {
          written.push(Buffer.from(payload.data_base64, 'base64'));
          return { path: payload.path, size: written[0]?.length ?? 0 };
        },
      });
      await until(() => b.gateway.isConnected(agent.assetId), 'the view on b');
      const content = randomBytes(3 * 1024 * 1024 + 17);
      const result = await b.gateway.request(agent.assetId, 'files.write', {
        path: '/srv/data/blob.bin',
        data_base64: content.toString('base64'),
        overwrite: true,
      });
      expect(result).toEqual({ path: '/srv/data/blob.bin', size: content.length });
      expect(written).toHaveLength(1);
      expect(written[0]?.equals(content)).toBe(true);
    } finally {
      for (const agent of agents) agent.close();
      for (const node of nodes.splice(0)) await stopNode(node);
      await nats.dispose();
    }
  });

  it('fails requests offline when the holding process goes away, and marks its agents offline once', async () => {
    const [a, b, c] = [await startNode('a'), await startNode('b'), await startNode('c')];
    const agent = ids[0]!;
    await connect(a, agent, { 'processes.list': () => new Promise(() => undefined) });
    await until(() => b.gateway.isConnected(agent.assetId) && c.gateway.isConnected(agent.assetId), 'views');
    const waiting = b.gateway
      .request(agent.assetId, 'processes.list', {}, { timeoutMs: 60_000 })
      .catch((error: unknown) => error);

    // Process a dies without a word (its bus gone, its lease expired); only b is told by the registry.
    await a.bus.close();
    events.length = 0;
    await cluster.kill(a.id, b.id);

    expect(await waiting).toBeInstanceOf(AgentOfflineError);
    expect(b.gateway.isConnected(agent.assetId)).toBe(false);
    await until(() => !c.gateway.isConnected(agent.assetId), 'the view on c');
    expect(await statusOf(agent.assetId)).toBe('offline');
    expect(events.filter((e) => e.type === 'asset.offline').map((e) => e.data)).toEqual([
      expect.objectContaining({ asset_id: agent.assetId }),
    ]);
    await expect(b.gateway.request(agent.assetId, 'exec.run', execPayload)).rejects.toBeInstanceOf(
      AgentOfflineError,
    );
  });

  it('keeps an agent online when it reconnects to another process before the old one sees it go', async () => {
    const [a, b, c] = [await startNode('a'), await startNode('b'), await startNode('c')];
    const agent = ids[0]!;
    const first = await connect(a, agent);
    await until(() => c.gateway.isConnected(agent.assetId), 'the view on c');

    await connect(b, agent);
    events.length = 0;
    // The old holder sees its connection close only now.
    first.close();
    await first.closed();
    // Its disconnect is written (or skipped) within a few presence turns.
    await new Promise((r) => setTimeout(r, 300));

    expect(await statusOf(agent.assetId)).toBe('online');
    expect(events.some((e) => e.type === 'asset.offline' || e.type === 'agent.disconnected')).toBe(false);
    await until(() => c.gateway.isConnected(agent.assetId), 'the view on c');
    const result = await c.gateway.request(agent.assetId, 'exec.run', execPayload);
    expect(result.stdout).toBe('uptime\n');
    expect(a.gateway.isConnected(agent.assetId)).toBe(true);
  });

  it('relays a terminal stream with its flow control: the agent gets credit only when the opener acks', async () => {
    const [a, b] = [await startNode('a'), await startNode('b')];
    const agent = await connect(a, ids[0]!);
    const assetId = ids[0]!.assetId;
    await until(() => b.gateway.isConnected(assetId), 'the view on b');

    const received: Buffer[] = [];
    const ends: StreamEnd[] = [];
    const window = 4_096;
    const handle: AgentStreamHandle<'pty'> = await b.gateway.openStream(assetId, {
      kind: 'pty',
      params: { cols: 80, rows: 24 },
      windowBytes: window,
      onData: (chunk) => received.push(chunk),
      onClose: (end) => ends.push(end),
    });
    expect(handle.info).toEqual({ shell: '/bin/fake', pid: 1 });
    const [agentStream] = [...agent.streams.values()];
    expect(agentStream).toBeDefined();

    // Input reaches the agent; its echo comes back across the relay.
    expect(handle.write(Buffer.from('hi'))).toBe(true);
    await until(() => Buffer.concat(received).toString() === 'hi', 'the echo');
    handle.ack(2);
    handle.resize(100, 30);

    // A flood: the agent sends what its credit allows, and the relay holds it there while nobody acks.
    received.length = 0;
    const flood = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 5; i++) agent.output(agentStream!.id, flood);
    await until(() => agentStream!.credit === 0, 'the window to fill');
    await until(() => received.reduce((n, c) => n + c.length, 0) >= window - 2, 'the output to arrive');
    for (let i = 0; i < 5; i++) agent.output(agentStream!.id, flood);
    await new Promise((r) => setTimeout(r, 100));
    const total = received.reduce((n, c) => n + c.length, 0);
    expect(total).toBeLessThanOrEqual(window);
    expect(agentStream!.credit).toBe(0);

    // The opener's consumer takes it: the credit travels back to the agent, and more output flows.
    handle.ack(total);
    await until(() => agentStream!.credit > 0, 'the credit to come back');
    agent.output(agentStream!.id, flood);
    await until(() => received.reduce((n, c) => n + c.length, 0) > total, 'more output');

    // The shell exits: the opener hears how.
    handle.write(Buffer.from('exit 3\r'));
    await until(() => ends.length === 1, 'the end');
    expect(ends[0]).toMatchObject({ reason: 'exited', by: 'agent', exit: { code: 3, signal: null } });
    expect(handle.closed).toBe(true);
  });

  it('ends a relayed stream when the process at the other end goes away', async () => {
    const [a, b] = [await startNode('a'), await startNode('b')];
    const agent = await connect(a, ids[0]!);
    const assetId = ids[0]!.assetId;
    await until(() => b.gateway.isConnected(assetId), 'the view on b');
    const ends: StreamEnd[] = [];
    await b.gateway.openStream(assetId, {
      kind: 'pty',
      params: { cols: 80, rows: 24 },
      onData: () => undefined,
      onClose: (end) => ends.push(end),
    });
    await until(() => agent.streams.size === 1, 'the stream on the agent');

    // The opener dies: the holder closes the agent's stream.
    await b.bus.close();
    await cluster.kill(b.id, a.id);
    await until(() => agent.streams.size === 0, 'the agent stream to close');
    expect([...agent.streams.values()]).toEqual([]);
  });

  it('ends a relayed stream on the opener, with a reason, when the holder goes away', async () => {
    const [a, b] = [await startNode('a'), await startNode('b')];
    await connect(a, ids[0]!);
    const assetId = ids[0]!.assetId;
    await until(() => b.gateway.isConnected(assetId), 'the view on b');
    const ends: StreamEnd[] = [];
    const handle = await b.gateway.openStream(assetId, {
      kind: 'pty',
      params: { cols: 80, rows: 24 },
      onData: () => undefined,
      onClose: (end) => ends.push(end),
    });

    await a.bus.close();
    await cluster.kill(a.id, b.id);
    expect(ends).toEqual([
      { reason: 'the hub process at the other end of the stream went away', by: 'hub', exit: null },
    ]);
    expect(handle.closed).toBe(true);
    expect(handle.write(Buffer.from('x'))).toBe(false);
  });

  it('refuses a stream the agent cannot open with the same error as locally', async () => {
    const [a, b] = [await startNode('a'), await startNode('b')];
    await connect(a, ids[0]!);
    const assetId = ids[0]!.assetId;
    await until(() => b.gateway.isConnected(assetId), 'the view on b');
    await expect(
      b.gateway.openStream(assetId, {
        kind: 'tcp',
        params: {},
        onData: () => undefined,
        onClose: () => undefined,
      }),
    ).rejects.toMatchObject({ code: 'unsupported' });
    await expect(
      b.gateway.openStream(assetId, {
        kind: 'pty',
        params: { cols: 0, rows: 0 },
        onData: () => undefined,
        onClose: () => undefined,
      }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('closes an agent held by another process when asked to disconnect it', async () => {
    const [a, b] = [await startNode('a'), await startNode('b')];
    const agent = await connect(a, ids[0]!);
    await until(() => b.gateway.isConnected(ids[0]!.assetId), 'the view on b');
    b.gateway.disconnect(ids[0]!.assetId, 'credential revoked');
    const closed = await agent.closed();
    expect(closed).toEqual({ code: 1008, reason: 'credential revoked' });
    await until(() => !b.gateway.isConnected(ids[0]!.assetId), 'the view on b');
    await until(async () => (await statusOf(ids[0]!.assetId)) === 'offline', 'offline');
  });

  it('knows the agents of the others from their snapshots when it starts', async () => {
    const [a, b] = [await startNode('a'), await startNode('b')];
    await connect(a, ids[0]!);
    await connect(b, ids[1]!);
    await connect(b, ids[2]!);
    await until(() => a.gateway.connectedCount() === 3, 'the views');

    const c = await startNode('c');
    // Right after start, before any view message could come: the snapshots answered.
    expect(c.gateway.connectedCount()).toBe(3);
    expect(c.gateway.isConnected(ids[0]!.assetId)).toBe(true);
    expect(c.gateway.isConnected(ids[2]!.assetId)).toBe(true);
    expect(c.gateway.isConnected(ids[3]!.assetId)).toBe(false);
    expect(
      c.gateway
        .sessions()
        .map((s) => s.assetId)
        .sort(),
    ).toEqual([ids[0]!.assetId, ids[1]!.assetId, ids[2]!.assetId].sort());
  });

  it('runs an exec fan-out across processes with the exec service unchanged', async () => {
    const [a, b, c] = [await startNode('a'), await startNode('b'), await startNode('c')];
    await connect(a, ids[0]!);
    await connect(b, ids[1]!);
    await connect(c, ids[2]!);
    await until(() => a.gateway.connectedCount() === 3, 'the view on a');
    const exec = createExecService({
      audit: t.hub.services.audit,
      agents: createAgentCaller({ assets: createAssetReads(t.hub.database.db), gateway: a.gateway }),
      groups: t.hub.services.groups,
      events: createInProcessEventBus({ clock: t.clock }),
    });
    const all = ids.map((i) => i.assetId);
    const { results } = await exec.runOnAssets(systemOwnerContext(), all, {
      command: 'hostname',
      timeout: 5,
    });
    const byAsset = new Map(results.map((r) => [r.asset_id, r]));
    for (const id of all.slice(0, 3))
      expect(byAsset.get(id)).toMatchObject({ status: 'ok', stdout: 'hostname\n' });
    expect(byAsset.get(ids[3]!.assetId)).toMatchObject({ status: 'offline' });
  });

  const refused = Symbol('refused');

  /** A bus that counts the requests it sends, by subject, and lets a test change what a responder answers. */
  function tapped(
    bus: ClusterBus,
    sent: Map<string, number>,
    mangle?: (verb: string, reply: unknown) => unknown,
  ) {
    const wrapped: ClusterBus = {
      ...bus,
      request(subject, data, options) {
        sent.set(subject, (sent.get(subject) ?? 0) + 1);
        return bus.request(subject, data, options);
      },
      respond(subject, responder, options) {
        const verb = subject.split('.').pop() ?? '';
        // A process of a version without batches answers none.
        if (mangle && mangle(verb, undefined) === refused) return () => undefined;
        if (!mangle) return bus.respond(subject, responder, options);
        return bus.respond(subject, async (data, meta) => mangle(verb, await responder(data, meta)), options);
      },
    };
    return wrapped;
  }

  it('sends the targets of a fan-out held elsewhere in one batch per holder per slice, each result its own', async () => {
    const sent = new Map<string, number>();
    const a = await startNode('a', { bus: tapped(network.join('node_a'), sent) });
    const [b, c] = [await startNode('b'), await startNode('c')];
    const more = await provisionAgents(t.hub, 2, 'bt');
    const [b1, c1, b2, c2, a1, off] = [ids[0]!, ids[1]!, ids[2]!, ids[3]!, more[0]!, more[1]!];
    await connect(b, b1);
    await connect(c, c1, {
      'exec.run': () => ({ error: { code: 'permission_denied', message: 'not allowed here' } }),
    });
    await connect(b, b2);
    await connect(c, c2);
    await connect(a, a1);
    await until(() => a.gateway.connectedCount() === 5, 'the view on a');
    const exec = createExecService({
      audit: t.hub.services.audit,
      agents: createAgentCaller({ assets: createAssetReads(t.hub.database.db), gateway: a.gateway }),
      groups: t.hub.services.groups,
      events: createInProcessEventBus({ clock: t.clock }),
      sliceSize: 3,
    });
    const order = [b1, c1, b2, c2, a1, off].map((i) => i.assetId);
    sent.clear();
    const { results, summary } = await exec.runOnAssets(systemOwnerContext(), order, {
      command: 'hostname',
      timeout: 5,
    });

    // Slice one (b1 c1 b2): a batch to b and one to c; slice two (c2 a1 off): one to c, a1 here, off not sent.
    const subjects = (node: Node, verb: string) => sent.get(`svc.node.${node.id}.agent.${verb}`) ?? 0;
    expect([subjects(b, 'batch'), subjects(c, 'batch')]).toEqual([1, 2]);
    expect([subjects(b, 'request'), subjects(c, 'request')]).toEqual([0, 0]);
    expect(results.map((r) => [r.asset_id, r.status])).toEqual([
      [b1.assetId, 'ok'],
      [c1.assetId, 'error'],
      [b2.assetId, 'ok'],
      [c2.assetId, 'ok'],
      [a1.assetId, 'ok'],
      [off.assetId, 'offline'],
    ]);
    expect(results[0]).toMatchObject({ stdout: 'hostname\n', exit_code: 0 });
    expect(results[1]?.error).toBe('permission_denied: not allowed here');
    expect(summary).toMatchObject({ ok: 4, error: 1, offline: 1 });
  });

  it('keeps the error of each batched target its own: reply, timeout, holder gone, bus down', async () => {
    const [a, b, c] = [await startNode('a'), await startNode('b'), await startNode('c')];
    const [slow, refusing, onC] = [ids[0]!, ids[1]!, ids[2]!];
    await connect(b, slow, { 'processes.list': () => new Promise(() => undefined) });
    await connect(b, refusing, {
      'processes.list': () => ({ error: { code: 'permission_denied', message: 'no' } }),
    });
    await connect(c, onC, { 'processes.list': () => new Promise(() => undefined) });
    await until(() => a.gateway.connectedCount() === 3, 'the view on a');
    const items = [slow, refusing, onC].map((i) => ({ assetId: i.assetId, payload: {} }));

    const settled = a.gateway.requestMany('processes.list', items, { timeoutMs: 300 });
    const outcomes = await Promise.allSettled(settled);
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).name : 'ok'))).toEqual([
      'AgentTimeoutError',
      'AgentReplyError',
      'AgentTimeoutError',
    ]);
    expect(outcomes[1]).toMatchObject({ reason: { code: 'permission_denied' } });

    // The bus down: every target held elsewhere is unreachable from here, not offline.
    network.setDown(true);
    const down = await Promise.allSettled(a.gateway.requestMany('processes.list', items, { timeoutMs: 300 }));
    expect(
      down.map((o) => o.status === 'rejected' && o.reason instanceof ClusterUnavailableCallError),
    ).toEqual([true, true, true]);
    network.setDown(false);

    // c goes away while its batch waits: its target is offline, as a single request's would be.
    const waiting = a.gateway.requestMany('processes.list', [items[2]!], { timeoutMs: 60_000 });
    // Watched before c goes: on a busy machine the rejection may come while c is still closing.
    const offline = expect(waiting[0]).rejects.toBeInstanceOf(AgentOfflineError);
    await c.bus.close();
    await cluster.kill(c.id, a.id);
    await offline;
  });

  it('fails every target of a batch whose reply is outside the catalogue', async () => {
    let mangled: unknown = null;
    const a = await startNode('a');
    const b = await startNode('b', {
      bus: tapped(network.join('node_b'), new Map(), (verb, reply) =>
        verb === 'batch' && mangled !== null ? mangled : reply,
      ),
    });
    await connect(b, ids[0]!);
    await connect(b, ids[1]!);
    await until(() => a.gateway.connectedCount() === 2, 'the view on a');
    const items = [ids[0]!, ids[1]!].map((i) => ({ assetId: i.assetId, payload: execPayload }));

    for (const bad of [
      { results: [{ ok: true, data: {} }], extra: 1 },
      { results: [{ ok: true, data: {} }] },
      {
        results: [
          { ok: true, data: { nonsense: 1 } },
          { ok: true, data: { nonsense: 1 } },
        ],
      },
    ]) {
      mangled = bad;
      const outcomes = await Promise.allSettled(a.gateway.requestMany('exec.run', items));
      for (const outcome of outcomes)
        expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'failed' } });
    }
    mangled = null;
    const fine = await Promise.all(a.gateway.requestMany('exec.run', items));
    expect(fine.map((r) => r.stdout)).toEqual(['uptime\n', 'uptime\n']);
  });

  it('sends each target on its own to a holder that answers no batches (a rolling upgrade)', async () => {
    const sent = new Map<string, number>();
    const a = await startNode('a', { bus: tapped(network.join('node_a'), sent) });
    const b = await startNode('b', {
      bus: tapped(network.join('node_b'), new Map(), (verb, reply) => (verb === 'batch' ? refused : reply)),
    });
    await connect(b, ids[0]!);
    await connect(b, ids[1]!);
    await until(() => a.gateway.connectedCount() === 2, 'the view on a');
    const items = [ids[0]!, ids[1]!].map((i) => ({ assetId: i.assetId, payload: execPayload }));

    const results = await Promise.all(a.gateway.requestMany('exec.run', items));
    expect(results.map((r) => r.stdout)).toEqual(['uptime\n', 'uptime\n']);
    expect(sent.get(`svc.node.${b.id}.agent.request`)).toBe(2);
  });
});
