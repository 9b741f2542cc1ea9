/**
 * Terminal sessions across two hub processes (decision 0043): one PostgreSQL schema, one in-memory cluster
 * network, the agent on hub A. An attach that lands on B is checked on B and relayed to A; another caller
 * cannot use B to reach it; a process starting leaves A's sessions live; A going away ends them, and B then
 * answers as for any ended session; the recording is read through B. Runs where PostgreSQL is.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentChannelPath, sessionCloseCodes, type Session } from '@svc/protocol';
import { echoExec, FakeAgent, provisionAgents, type TestHub } from '@svc/testkit';
import { startMemoryCluster, until, type MemoryCluster } from '../../testing/memory-cluster.js';
import { attach, attached } from '../../testing/session-attach.js';

const postgresUrl = process.env.SVC_TEST_DATABASE_URL;

describe.skipIf(!postgresUrl)('terminal sessions across hub processes', () => {
  let cluster: MemoryCluster;
  let hubs: TestHub[];
  let agent: FakeAgent;
  let assetId: string;
  let alice: string;
  let bob: string;

  const portOf = (hub: TestHub) => hub.servers?.httpPort ?? 0;

  async function createOn(hub: TestHub, key: string): Promise<Session> {
    const res = await hub.request('POST', `/api/v2/assets/${assetId}/sessions`, {
      key,
      body: { kind: 'terminal', cols: 100, rows: 30 },
    });
    expect(res.status, res.text).toBe(201);
    return res.json.data as Session;
  }

  beforeEach(async () => {
    cluster = await startMemoryCluster(postgresUrl ?? '');
    hubs = cluster.hubs;
    const a = await cluster.startHub('a');
    const b = await cluster.startHub('b');
    const [identity] = await provisionAgents(a.hub, 1, 'rel');
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
    alice = (await b.createKey({ name: 'alice', role: 'operator', scopes: ['assets:exec', 'assets:read'] }))
      .raw_key;
    bob = (await b.createKey({ name: 'bob', role: 'operator', scopes: ['assets:exec', 'assets:read'] }))
      .raw_key;
  });

  afterEach(async () => {
    agent.close();
    await cluster.close();
  });

  it('relays an attach on B to the session on A: input echoes, close ends it on both', async () => {
    const [a, b] = hubs as [TestHub, TestHub];
    const session = await createOn(a, alice);

    const viaB = attached(await attach(portOf(b), alice, session.id));
    viaB.ws.send(Buffer.from('echo relayed\n'), { binary: true });
    await viaB.waitFor(/relayed/);
    await until(() => viaB.controls.some((c) => c.type === 'status'), 'the status');
    expect(viaB.controls.find((c) => c.type === 'status')).toMatchObject({ state: 'live' });

    // A browser on A sees the same screen, and B's output: one session.
    const onA = attached(await attach(portOf(a), alice, session.id));
    await onA.waitFor(/relayed/);
    onA.ws.send(Buffer.from('from a\n'), { binary: true });
    await viaB.waitFor(/from a/);

    // Closing through B ends the session on A, for both browsers.
    viaB.ws.send(JSON.stringify({ type: 'close' }));
    expect((await viaB.closed).code).toBe(sessionCloseCodes.ended);
    expect((await onA.closed).code).toBe(sessionCloseCodes.ended);
    expect(viaB.controls.at(-1)).toMatchObject({ type: 'ended', reason: 'closed by the user' });
    await until(async () => {
      const got = await b.request('GET', `/api/v2/sessions/${session.id}`, { key: alice });
      return (got.json.data as Session).state === 'ended';
    }, 'the session ended in the database');

    // The recording made on A is read through B.
    const cast = await b.request('GET', `/api/v2/recordings/${session.recording_id ?? ''}/cast`, {
      key: alice,
    });
    expect(cast.status).toBe(200);
    expect(cast.text).toContain('relayed');
  });

  it('closes a session on A through B’s REST API', async () => {
    const [a, b] = hubs as [TestHub, TestHub];
    const session = await createOn(a, alice);
    const onA = attached(await attach(portOf(a), alice, session.id));
    const closed = await b.request('DELETE', `/api/v2/sessions/${session.id}`, { key: alice });
    expect(closed.status, closed.text).toBe(200);
    expect((await onA.closed).code).toBe(sessionCloseCodes.ended);
    const again = await b.request('DELETE', `/api/v2/sessions/${session.id}`, { key: alice });
    expect(again.status).toBe(409);
  });

  it('refuses another caller through B as it does on A', async () => {
    const [a, b] = hubs as [TestHub, TestHub];
    const session = await createOn(a, alice);
    const onA = await attach(portOf(a), bob, session.id);
    const onB = await attach(portOf(b), bob, session.id);
    expect(onA).toMatchObject({ status: 404 });
    expect(onB).toMatchObject({ status: 404 });
  });

  it('keeps A’s live session when another process starts, and ends it when A goes away', async () => {
    const [a, b] = hubs as [TestHub, TestHub];
    const session = await createOn(a, alice);
    const c = await cluster.startHub('c');
    // The start's sweep ran (it is the start's first query); the session lives on, attachable through C.
    await new Promise((r) => setTimeout(r, 300));
    const viaC = attached(await attach(portOf(c), alice, session.id));
    viaC.ws.send(Buffer.from('still here\n'), { binary: true });
    await viaC.waitFor(/still here/);
    const viaB = attached(await attach(portOf(b), alice, session.id));
    await viaB.waitFor(/still here/);

    // A dies: it stops answering; its lease runs out and B is the survivor told.
    await cluster.kill(a, b);
    const ended = await viaB.closed;
    expect(ended.code).toBe(sessionCloseCodes.ended);
    expect(viaB.controls.at(-1)).toMatchObject({ type: 'ended' });
    expect((await viaC.closed).code).toBe(sessionCloseCodes.ended);
    const row = await b.request('GET', `/api/v2/sessions/${session.id}`, { key: alice });
    expect(row.json.data).toMatchObject({ state: 'ended', end_reason: 'its hub process went away' });
    const late = await attach(portOf(b), alice, session.id);
    expect(late).toMatchObject({ status: 409 });
  });
});
