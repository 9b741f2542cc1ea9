/**
 * A key changed through one hub process reaches what it holds open on another (decision 0049): one PostgreSQL
 * schema, one in-memory cluster network, the agent on hub A. The key is narrowed through A; its event stream
 * and its terminal relayed through B are closed by B (4403), and the shell on A ends. The interactive policy
 * turned off through A closes a terminal B holds itself (4003). Runs where PostgreSQL is.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  agentChannelPath,
  eventStreamCloseCodes,
  sessionCloseCodes,
  type ApiKeyCreated,
  type Session,
} from '@svc/protocol';
import { echoExec, FakeAgent, provisionAgents, type TestHub } from '@svc/testkit';
import { startMemoryCluster, until, type MemoryCluster } from '../../testing/memory-cluster.js';
import { attach, attached } from '../../testing/session-attach.js';

const postgresUrl = process.env.SVC_TEST_DATABASE_URL;

describe.skipIf(!postgresUrl)('a key changed on one process, its connections held by another', () => {
  let cluster: MemoryCluster;
  let a: TestHub;
  let b: TestHub;
  let agent: FakeAgent;
  let assetId: string;
  let key: ApiKeyCreated;

  const portOf = (hub: TestHub) => hub.servers?.httpPort ?? 0;

  beforeEach(async () => {
    cluster = await startMemoryCluster(postgresUrl ?? '');
    a = await cluster.startHub('a');
    b = await cluster.startHub('b');
    const [identity] = await provisionAgents(a.hub, 1, 'rcc');
    if (!identity) throw new Error('no agent');
    assetId = identity.assetId;
    agent = new FakeAgent({
      url: `ws://127.0.0.1:${portOf(a)}${agentChannelPath}`,
      credential: identity.credential,
      terminal: true,
      handlers: { 'exec.run': echoExec },
    });
    await agent.start();
    await until(() => b.hub.gateway.isConnected(assetId), 'the agent in b’s view');
    key = await b.createKey({
      name: 'narrowed',
      role: 'operator',
      scopes: ['assets:exec', 'assets:read', 'events:subscribe'],
    });
  });

  afterEach(async () => {
    agent.close();
    await cluster.close();
  });

  it('closes the event stream and the relayed terminal on B, and ends the shell on A', async () => {
    const created = await a.request('POST', `/api/v2/assets/${assetId}/sessions`, {
      key: key.raw_key,
      body: { kind: 'terminal' },
    });
    expect(created.status, created.text).toBe(201);
    const session = created.json.data as Session;
    const viaB = attached(await attach(portOf(b), key.raw_key, session.id));
    viaB.ws.send(Buffer.from('echo relayed\r'), { binary: true });
    await viaB.waitFor(/relayed/);

    const events = new WebSocket(`ws://127.0.0.1:${portOf(b)}/api/v2/events/stream`, {
      headers: { authorization: `Bearer ${key.raw_key}` },
    });
    const eventsClosed = new Promise<{ code: number; reason: string }>((resolve) => {
      events.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
      });
    });
    await new Promise((resolve, reject) => {
      events.once('open', resolve);
      events.once('error', reject);
    });

    // Through A, the process that holds neither connection (the owner token is the last hub's to start).
    const patched = await a.request('PATCH', `/api/v2/keys/${key.id}`, {
      key: b.ownerKey,
      body: { scopes: ['assets:read'] },
    });
    expect(patched.status, patched.text).toBe(200);

    const terminal = await viaB.closed;
    expect(terminal.code).toBe(sessionCloseCodes.accessWithdrawn);
    expect(terminal.reason).toMatch(/assets:exec/);
    const stream = await eventsClosed;
    expect(stream.code).toBe(eventStreamCloseCodes.accessWithdrawn);
    expect(stream.reason).toMatch(/events:subscribe/);
    await until(async () => {
      const seen = await a.request('GET', `/api/v2/sessions/${session.id}`, { key: b.ownerKey });
      return (seen.json.data as Session).state === 'ended';
    }, 'the shell on A ended');
  });

  it('the interactive policy turned off through A closes a terminal attached on B to B’s own session', async () => {
    const created = await b.request('POST', `/api/v2/assets/${assetId}/sessions`, {
      key: key.raw_key,
      body: { kind: 'terminal' },
    });
    expect(created.status, created.text).toBe(201);
    const session = created.json.data as Session;
    const onB = attached(await attach(portOf(b), key.raw_key, session.id));
    onB.ws.send(Buffer.from('echo held-by-b\r'), { binary: true });
    await onB.waitFor(/held-by-b/);

    const off = await a.request('PATCH', '/api/settings/runtime', {
      key: b.ownerKey,
      body: { 'policy.interactive_enabled': false },
    });
    expect(off.status, off.text).toBe(200);
    expect(await onB.closed).toEqual({
      code: sessionCloseCodes.policyDisabled,
      reason: 'interactive sessions were turned off',
    });
  });
});
