/**
 * Terminal sessions across two hub processes (decision 0043): one PostgreSQL schema, one in-memory cluster
 * network, the agent on hub A. An attach that lands on B is checked on B and relayed to A; another caller
 * cannot use B to reach it; B shows A's session as A sees it live, and as stored (stale) when A does not
 * answer; a process starting leaves A's sessions live; A going away ends them, and B then answers as for any
 * ended session; the recording is read through B. A terminal opened on B while B's view of the agent is stale
 * is retried once on the agent's new holder. Runs where PostgreSQL is.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentChannelPath, sessionCloseCodes, type Session } from '@svc/protocol';
import { echoExec, FakeAgent, provisionAgents, type TestHub } from '@svc/testkit';
import { clusterSubjects } from '../../agents/cluster-wire.js';
import type { ClusterBus } from '../../platform/cluster/cluster-bus.js';
import { startMemoryCluster, until, type MemoryCluster } from '../../testing/memory-cluster.js';
import { attach, attached } from '../../testing/session-attach.js';

const postgresUrl = process.env.SVC_TEST_DATABASE_URL;

/**
 * A process's bus that can stop hearing which process holds which agent (its view goes stale until released),
 * and that keeps the answers to the requests it made.
 */
function viewHolding(bus: ClusterBus) {
  let holding = false;
  const held: (() => void)[] = [];
  const replies: { subject: string; reply: unknown }[] = [];
  const wrapped: ClusterBus = {
    ...bus,
    subscribe(subject, handler) {
      if (subject !== clusterSubjects.view) return bus.subscribe(subject, handler);
      return bus.subscribe(subject, (data, meta) => {
        if (holding)
          held.push(() => {
            handler(data, meta);
          });
        else handler(data, meta);
      });
    },
    async request(subject, data, options) {
      const reply = await bus.request(subject, data, options);
      replies.push({ subject, reply });
      return reply;
    },
  };
  return {
    bus: wrapped,
    replies,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const deliver of held.splice(0)) deliver();
    },
  };
}

describe.skipIf(!postgresUrl)('terminal sessions across hub processes', () => {
  let cluster: MemoryCluster;
  let hubs: TestHub[];
  let agent: FakeAgent;
  let assetId: string;
  let alice: string;
  let bob: string;
  let viewOnB: ReturnType<typeof viewHolding>;
  let credential: string;

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
    const b = await cluster.startHub('b', {
      wrapBus: (bus) => {
        viewOnB = viewHolding(bus);
        return viewOnB.bus;
      },
    });
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
    credential = identity.credential;
    alice = (await b.createKey({ name: 'alice', role: 'operator', scopes: ['assets:exec', 'assets:read'] }))
      .raw_key;
    bob = (await b.createKey({ name: 'bob', role: 'operator', scopes: ['assets:exec', 'assets:read'] }))
      .raw_key;
  });

  afterEach(async () => {
    viewOnB.release();
    agent.close();
    await cluster.close();
  });

  async function getOn(hub: TestHub, key: string, id: string) {
    const res = await hub.request('GET', `/api/v2/sessions/${id}`, { key });
    return { status: res.status, session: res.json.data as Session };
  }

  it('shows on B the session as A runs it: browsers attached, size after a resize, stale when A is silent', async () => {
    const [a, b] = hubs as [TestHub, TestHub];
    const session = await createOn(a, alice);
    expect(await getOn(b, alice, session.id)).toMatchObject({
      status: 200,
      session: { attached: 0, cols: 100, rows: 30, stale: false },
    });

    const onA = attached(await attach(portOf(a), alice, session.id));
    await until(async () => (await getOn(b, alice, session.id)).session.attached === 1, 'attached 1 on b');
    onA.ws.send(JSON.stringify({ type: 'resize', cols: 132, rows: 43 }));
    onA.ws.send(Buffer.from('echo busy\n'), { binary: true });
    await onA.waitFor(/busy/);
    await until(async () => (await getOn(b, alice, session.id)).session.cols === 132, 'the new size on b');
    const seen = await getOn(b, alice, session.id);
    expect(seen.session).toMatchObject({ attached: 1, cols: 132, rows: 43, stale: false, state: 'live' });
    expect(seen.session.last_activity_at).toBe((await getOn(a, alice, session.id)).session.last_activity_at);
    const listed = await b.request('GET', '/api/v2/sessions?state=live', { key: alice });
    expect(listed.json.data).toMatchObject([
      { id: session.id, attached: 1, cols: 132, rows: 43, stale: false },
    ]);
    // A relayed browser is one more client of A's session.
    const viaB = attached(await attach(portOf(b), alice, session.id));
    await until(async () => (await getOn(b, alice, session.id)).session.attached === 2, 'attached 2 on b');
    viaB.ws.close();
    await until(async () => (await getOn(a, alice, session.id)).session.attached === 1, 'the relay left');

    // Nobody else sees more through B than through A.
    expect((await getOn(b, bob, session.id)).status).toBe(404);
    expect((await getOn(a, bob, session.id)).status).toBe(404);
    const bobsList = await b.request('GET', '/api/v2/sessions', { key: bob });
    expect(bobsList.json.data).toEqual([]);

    // A stops answering (its lease still holds): B shows the stored row, and says so.
    cluster.silence(a);
    expect(await getOn(b, alice, session.id)).toMatchObject({
      status: 200,
      session: { state: 'live', attached: 0, cols: 100, rows: 30, stale: true },
    });
    expect((await getOn(b, bob, session.id)).status).toBe(404);
    onA.ws.close();
    await onA.closed;
  });

  /** The agent leaves A while B's view still names A, and B does not hear of it. */
  async function agentLeavesAUnseenByB(a: TestHub): Promise<void> {
    viewOnB.hold();
    agent.close();
    await agent.closed();
    await until(() => !a.hub.gateway.isConnected(assetId), 'a lets the agent go');
  }

  const notHeldByA = () =>
    viewOnB.replies.some(
      (r) =>
        r.subject === clusterSubjects.streamOpen('node_a') &&
        (r.reply as { error?: unknown }).error === 'not_held',
    );

  it('opens a terminal on B through the agent’s new process when B’s route to A is stale', async () => {
    const [a, b] = hubs as [TestHub, TestHub];
    const c = await cluster.startHub('c');
    await agentLeavesAUnseenByB(a);
    agent = new FakeAgent({
      url: `ws://127.0.0.1:${portOf(c)}${agentChannelPath}`,
      credential,
      terminal: true,
      handlers: { 'exec.run': echoExec },
    });
    await agent.start();
    await until(() => a.hub.gateway.isConnected(assetId), 'the agent on c, in a’s view');
    expect(b.hub.gateway.isConnected(assetId)).toBe(true);

    const created = b.request('POST', `/api/v2/assets/${assetId}/sessions`, {
      key: alice,
      body: { kind: 'terminal', cols: 100, rows: 30 },
    });
    // A answered that it does not hold the agent; B now hears where it went, well within its wait.
    await until(notHeldByA, 'a’s not_held');
    viewOnB.release();
    const res = await created;
    expect(res.status, res.text).toBe(201);
    const session = res.json.data as Session;
    const viaB = attached(await attach(portOf(b), alice, session.id));
    viaB.ws.send(Buffer.from('echo moved along\n'), { binary: true });
    await viaB.waitFor(/moved along/);
    viaB.ws.close();
    await viaB.closed;
  });

  it('answers asset_offline for a terminal on B when the agent is nowhere B can find within a second', async () => {
    const [a, b] = hubs as [TestHub, TestHub];
    await agentLeavesAUnseenByB(a);
    expect(b.hub.gateway.isConnected(assetId)).toBe(true);

    const started = Date.now();
    const res = await b.request('POST', `/api/v2/assets/${assetId}/sessions`, {
      key: alice,
      body: { kind: 'terminal' },
    });
    expect(res.status, res.text).toBe(409);
    expect(res.json).toMatchObject({ error: 'asset_offline', status: 409 });
    expect(res.json.message).toMatch(new RegExp(`^asset rel\\S* \\(${assetId}\\) is offline \\(last seen: `));
    expect(notHeldByA()).toBe(true);
    // It waited for the view (about a second), once.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const live = await b.request('GET', '/api/v2/sessions?state=live', { key: alice });
    expect(live.json.data).toEqual([]);
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
