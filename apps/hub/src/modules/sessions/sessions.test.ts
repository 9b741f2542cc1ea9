/**
 * Terminal sessions through a test hub and a fake agent that echoes its terminal input: who may create and
 * attach, the live policy, re-attach with the recent screen, recordings and their ownership, and the bounds
 * on what a browser may send.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentChannelPath, sessionCloseCodes, type Recording, type Session } from '@svc/protocol';
import { echoExec, FakeAgent, provisionAgents, startTestHub, type TestHub } from '@svc/testkit';
import { ManualClock } from '../../platform/clock.js';
import { attach, attached } from '../../testing/session-attach.js';

describe('terminal sessions', () => {
  let t: TestHub;
  let port: number;
  let assetId: string;
  let agent: FakeAgent;
  let alice: string;
  let aliceId: string;
  let bob: string;
  let admin: string;
  let viewer: string;

  const create = (key: string, asset = assetId) =>
    t.request('POST', `/api/v2/assets/${asset}/sessions`, {
      key,
      body: { kind: 'terminal', cols: 100, rows: 30 },
    });

  beforeAll(async () => {
    t = await startTestHub({ listen: true, clock: new ManualClock(new Date()) });
    port = t.servers?.httpPort ?? 0;
    const [identity] = await provisionAgents(t.hub, 1, 'ses');
    if (!identity) throw new Error('no agent');
    assetId = identity.assetId;
    agent = new FakeAgent({
      url: `ws://127.0.0.1:${port}${agentChannelPath}`,
      credential: identity.credential,
      terminal: true,
      handlers: { 'exec.run': echoExec },
    });
    await agent.start();
    const aliceKey = await t.createKey({
      name: 'alice',
      role: 'operator',
      scopes: ['assets:exec', 'assets:read'],
    });
    alice = aliceKey.raw_key;
    aliceId = aliceKey.id;
    bob = (await t.createKey({ name: 'bob', role: 'operator', scopes: ['assets:exec'] })).raw_key;
    admin = (await t.createKey({ name: 'admin', role: 'admin', scopes: ['*'] })).raw_key;
    viewer = (await t.createKey({ name: 'viewer', role: 'viewer', scopes: ['*'] })).raw_key;
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });

  it('the owner types and sees output; a re-attach sees the earlier screen; the exit ends it; recorded', async () => {
    const res = await create(alice);
    expect(res.status, res.text).toBe(201);
    const session = res.json.data as Session;
    expect(session).toMatchObject({
      kind: 'terminal',
      state: 'live',
      owner_type: 'api_key',
      owner_id: aliceId,
    });
    expect(session.recording_id).not.toBeNull();

    const first = attached(await attach(port, alice, session.id));
    first.ws.send(Buffer.from('echo hello\r'), { binary: true });
    await first.waitFor(/echo hello/);
    first.ws.close();
    await first.closed;

    const again = attached(await attach(port, alice, session.id));
    await again.waitFor(/echo hello/);
    expect(again.controls[0]).toMatchObject({ type: 'status', state: 'live' });
    again.ws.send(JSON.stringify({ type: 'resize', cols: 120, rows: 40 }));
    again.ws.send(Buffer.from('exit 3\r'), { binary: true });
    const closed = await again.closed;
    expect(closed.code).toBe(sessionCloseCodes.ended);
    expect(again.controls.at(-1)).toMatchObject({ type: 'ended', exit_code: 3 });

    let ended: Session | null = null;
    for (let i = 0; i < 100; i++) {
      ended = (await t.request('GET', `/api/v2/sessions/${session.id}`, { key: alice })).json.data as Session;
      if (ended.state === 'ended') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(ended).toMatchObject({ state: 'ended', exit_code: 3 });

    const recordingId = session.recording_id ?? '';
    const cast = await t.request('GET', `/api/v2/recordings/${recordingId}/cast`, { key: alice });
    expect(cast.status, cast.text).toBe(200);
    expect(cast.headers['content-type']).toMatch(/asciicast/);
    const [header, ...events] = cast.text.trim().split('\n');
    expect(JSON.parse(header ?? '{}')).toMatchObject({ version: 2, width: 100, height: 30 });
    expect(events.some((line) => line.includes('"o"') && line.includes('echo hello'))).toBe(true);
    expect(events.some((line) => line.includes('"r"') && line.includes('120x40'))).toBe(true);

    // The recording: its owner and admins; another operator is refused as if it did not exist.
    expect((await t.request('GET', `/api/v2/recordings/${recordingId}/cast`, { key: bob })).status).toBe(404);
    expect((await t.request('GET', `/api/v2/recordings/${recordingId}`, { key: bob })).status).toBe(404);
    expect((await t.request('GET', `/api/v2/recordings/${recordingId}`, { key: admin })).status).toBe(200);
    const mine = await t.request('GET', '/api/v2/recordings', { key: alice });
    expect((mine.json.data as Recording[]).map((r) => r.id)).toContain(recordingId);
    expect(
      ((await t.request('GET', '/api/v2/recordings', { key: bob })).json.data as Recording[]).length,
    ).toBe(0);
    const audit = await t.request('GET', '/api/v2/audit/events?action=recording.accessed');
    expect(JSON.stringify(audit.json.data)).toContain(recordingId);
  });

  it('who may attach: the owner and an admin; another operator and a viewer are refused', async () => {
    const session = (await create(alice)).json.data as Session;
    const byBob = await attach(port, bob, session.id);
    expect(byBob).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const byViewer = await attach(port, viewer, session.id);
    expect(byViewer).toMatchObject({ status: 404 });
    const byAdmin = attached(await attach(port, admin, session.id));
    byAdmin.ws.close();
    expect((await t.request('GET', `/api/v2/sessions/${session.id}`, { key: bob })).status).toBe(404);
    expect((await t.request('DELETE', `/api/v2/sessions/${session.id}`, { key: bob })).status).toBe(404);
    expect((await t.request('DELETE', `/api/v2/sessions/${session.id}`, { key: alice })).status).toBe(200);
  });

  it('a device-owner proof, when sent, must be valid: a forged or oversized one opens nothing', async () => {
    const live = async () =>
      (await t.request('GET', '/api/v2/sessions?state=live', { key: alice })).json.meta?.total;
    const before = await live();
    const forged = await t.request('POST', `/api/v2/assets/${assetId}/sessions`, {
      key: alice,
      body: { kind: 'terminal', device_proof: 'forged-proof' },
    });
    expect(forged.status).toBe(403);
    expect(forged.json.message).toBe(
      `no valid device-owner proof for session:terminal:${assetId}: verify the device owner again`,
    );
    const oversized = await t.request('POST', `/api/v2/assets/${assetId}/sessions`, {
      key: alice,
      body: { kind: 'terminal', device_proof: 'p'.repeat(129) },
    });
    expect(oversized.status).toBe(400);
    expect(await live()).toBe(before);
  });

  it('a viewer cannot open a session; an offline asset answers 409 asset_offline', async () => {
    expect((await create(viewer)).json).toMatchObject({ error: 'read_only_role' });
    const offline = await t.createAsset({ name: 'offline-one' });
    const res = await create(admin, offline.id);
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ error: 'asset_offline' });
  });

  it('policy.interactive_enabled off refuses new sessions and new attaches at once, naming the policy', async () => {
    const session = (await create(alice)).json.data as Session;
    const off = await t.request('PATCH', '/api/settings/runtime', {
      body: { 'policy.interactive_enabled': false },
    });
    expect(off.status, off.text).toBe(200);
    const refused = await create(alice);
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: 'policy_disabled' });
    expect(String(refused.json.message)).toContain('policy.interactive_enabled');
    const attach403 = await attach(port, alice, session.id);
    expect(attach403).toMatchObject({ status: 403, body: { error: 'policy_disabled' } });
    await t.request('PATCH', '/api/settings/runtime', { body: { 'policy.interactive_enabled': true } });
    const ok = attached(await attach(port, alice, session.id));
    ok.ws.close();
    await t.request('DELETE', `/api/v2/sessions/${session.id}`, { key: alice });
  });

  it('bad input: a malformed control frame, an oversized frame, a keystroke flood each close the client', async () => {
    const session = (await create(alice)).json.data as Session;
    const a = attached(await attach(port, alice, session.id));
    a.ws.send(JSON.stringify({ type: 'resize', cols: 100000, rows: 1 }));
    expect(await a.closed).toMatchObject({
      code: sessionCloseCodes.protocolError,
      reason: expect.stringMatching(/malformed/) as unknown,
    });
    const b = attached(await attach(port, alice, session.id));
    b.ws.send('{nope');
    expect((await b.closed).code).toBe(sessionCloseCodes.protocolError);
    const c = attached(await attach(port, alice, session.id));
    c.ws.send(Buffer.alloc(64 * 1024, 0x61), { binary: true });
    expect((await c.closed).code).toBe(1009);
    const d = attached(await attach(port, alice, session.id));
    for (let i = 0; i < 40; i++) d.ws.send(Buffer.alloc(15 * 1024, 0x61), { binary: true });
    const flood = await d.closed;
    expect(flood.code).toBe(sessionCloseCodes.inputFlood);
    expect(flood.reason).toMatch(/input flood/);
    // The session itself lives on.
    const e = attached(await attach(port, alice, session.id));
    expect(e.controls.length + 1).toBeGreaterThan(0);
    e.ws.close();
    await t.request('DELETE', `/api/v2/sessions/${session.id}`, { key: alice });
  });

  it('policy.structured_enabled off refuses exec, fan-out and saved-action runs at once, naming the policy', async () => {
    const single = () =>
      t.request('POST', `/api/v2/assets/${assetId}/exec`, { key: alice, body: { command: 'uptime' } });
    const many = () =>
      t.request('POST', '/api/v2/exec', { key: alice, body: { targets: [assetId], command: 'uptime' } });
    expect((await single()).status).toBe(200);
    const action = await t.request('POST', '/api/v2/actions', {
      body: { name: 'up', command: 'uptime', targets: [assetId] },
    });
    expect(action.status, action.text).toBe(201);
    const actionId = (action.json.data as { id: string }).id;
    await t.request('PATCH', '/api/settings/runtime', { body: { 'policy.structured_enabled': false } });
    for (const res of [
      await single(),
      await many(),
      await t.request('POST', `/api/v2/actions/${actionId}/run`),
    ]) {
      expect(res.status, res.text).toBe(403);
      expect(res.json).toMatchObject({ error: 'policy_disabled' });
      expect(String(res.json.message)).toContain('policy.structured_enabled');
    }
    // Interactive sessions are another policy: they still open.
    const session = await create(alice);
    expect(session.status).toBe(201);
    await t.request('DELETE', `/api/v2/sessions/${(session.json.data as Session).id}`, { key: alice });
    await t.request('PATCH', '/api/settings/runtime', { body: { 'policy.structured_enabled': true } });
    expect((await single()).status).toBe(200);
  });
});
