/**
 * An attached terminal is checked again when its caller changes (decision 0049): a key that loses `assets:exec`
 * or the asset is closed with 4403 and, when it owned the session, the shell ends with it; an admin's narrowed
 * key leaves, the owner's session goes on; a console user made a viewer is closed with their ended session;
 * the interactive policy turned off closes attached terminals (4003) as it closes desktops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { agentChannelPath, sessionCloseCodes, type Session } from '@svc/protocol';
import { echoExec, FakeAgent, provisionAgents, startTestHub, type TestHub } from '@svc/testkit';
import { ManualClock } from '../../platform/clock.js';
import { interactiveTurnedOff } from '../../platform/policy-error.js';
import { attach, attached, type Attached } from '../../testing/session-attach.js';

describe('attached terminals follow their caller (decision 0049)', () => {
  let t: TestHub;
  let port: number;
  let assetId: string;
  let otherAssetId: string;
  let agent: FakeAgent;

  const create = async (key: string) => {
    const res = await t.request('POST', `/api/v2/assets/${assetId}/sessions`, {
      key,
      body: { kind: 'terminal', cols: 80, rows: 24 },
    });
    expect(res.status, res.text).toBe(201);
    return res.json.data as Session;
  };

  /** The session as an admin sees it, once it is `state` (bounded). */
  const sessionWhen = async (id: string, state: 'live' | 'ended') => {
    let seen: Session | null = null;
    for (let i = 0; i < 200; i++) {
      seen = (await t.request('GET', `/api/v2/sessions/${id}`)).json.data as Session;
      if (seen.state === state) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    return seen;
  };

  /** A terminal typed into and echoed: the shell answers this client. */
  const typed = async (client: Attached, word: string) => {
    client.ws.send(Buffer.from(`echo ${word}\r`), { binary: true });
    await client.waitFor(new RegExp(word));
  };

  beforeAll(async () => {
    t = await startTestHub({ listen: true, clock: new ManualClock(new Date()) });
    port = t.servers?.httpPort ?? 0;
    const [identity] = await provisionAgents(t.hub, 1, 'rck');
    if (!identity) throw new Error('no agent');
    assetId = identity.assetId;
    otherAssetId = (await t.createAsset({ name: 'rck-other' })).id;
    agent = new FakeAgent({
      url: `ws://127.0.0.1:${port}${agentChannelPath}`,
      credential: identity.credential,
      terminal: true,
      handlers: { 'exec.run': echoExec },
    });
    await agent.start();
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });

  it('a key that loses assets:exec: its terminal closes with 4403 and the shell it owns ends', async () => {
    const key = await t.createKey({ role: 'operator', scopes: ['assets:exec', 'assets:read'] });
    const session = await create(key.raw_key);
    const client = attached(await attach(port, key.raw_key, session.id));
    await typed(client, 'before');

    const patched = await t.request('PATCH', `/api/v2/keys/${key.id}`, { body: { scopes: ['assets:read'] } });
    expect(patched.status, patched.text).toBe(200);
    const closed = await client.closed;
    expect(closed.code).toBe(sessionCloseCodes.accessWithdrawn);
    expect(closed.reason).toMatch(/^access withdrawn: .*assets:exec/);
    // The shell is gone, not waiting for a re-attach: nothing more runs in it.
    expect(await sessionWhen(session.id, 'ended')).toMatchObject({
      state: 'ended',
      end_reason: expect.stringMatching(/^access withdrawn/) as unknown,
    });
    expect(await attach(port, key.raw_key, session.id)).toMatchObject({
      status: 403,
      body: { error: 'insufficient_scope' },
    });
  });

  it('a key narrowed away from the asset: its terminal closes with 4403 and the shell ends', async () => {
    const key = await t.createKey({
      role: 'operator',
      scopes: ['assets:exec', 'assets:read'],
      allowed_assets: [assetId, otherAssetId],
    });
    const session = await create(key.raw_key);
    const client = attached(await attach(port, key.raw_key, session.id));
    await typed(client, 'mine');

    const patched = await t.request('PATCH', `/api/v2/keys/${key.id}`, {
      body: { allowed_assets: [otherAssetId] },
    });
    expect(patched.status, patched.text).toBe(200);
    const closed = await client.closed;
    expect(closed.code).toBe(sessionCloseCodes.accessWithdrawn);
    expect(closed.reason).toContain(assetId);
    expect((await sessionWhen(session.id, 'ended'))?.state).toBe('ended');
  });

  it("an admin's narrowed key leaves another's terminal; the owner's session and browser go on", async () => {
    const owner = await t.createKey({ role: 'operator', scopes: ['assets:exec', 'assets:read'] });
    const admin = await t.createKey({ role: 'admin', scopes: ['assets:exec', 'assets:read'] });
    const session = await create(owner.raw_key);
    const mine = attached(await attach(port, owner.raw_key, session.id));
    const theirs = attached(await attach(port, admin.raw_key, session.id));
    await typed(theirs, 'admin-was-here');

    const patched = await t.request('PATCH', `/api/v2/keys/${admin.id}`, {
      body: { scopes: ['assets:read'] },
    });
    expect(patched.status, patched.text).toBe(200);
    expect((await theirs.closed).code).toBe(sessionCloseCodes.accessWithdrawn);
    await typed(mine, 'owner-goes-on');
    expect(mine.ws.readyState).toBe(WebSocket.OPEN);
    expect((await t.request('GET', `/api/v2/sessions/${session.id}`)).json.data).toMatchObject({
      state: 'live',
    });
    mine.ws.close();
    await t.request('DELETE', `/api/v2/sessions/${session.id}`);
  });

  it('a console user whose role drops to viewer: their attached terminal is closed', async () => {
    const made = await t.request('POST', '/api/auth/users', {
      body: { username: 'demoted', password: 'a-long-enough-password-1', role: 'operator' },
    });
    expect(made.status, made.text).toBe(201);
    const userId = (made.json.data as { id: string }).id;
    const login = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'demoted', password: 'a-long-enough-password-1' },
    });
    const setCookie = login.headers['set-cookie'];
    const cookie =
      (Array.isArray(setCookie) ? setCookie : [String(setCookie)])
        .find((c) => c.startsWith('svc_session='))
        ?.split(';')[0] ?? '';
    const created = await t.request('POST', `/api/v2/assets/${assetId}/sessions`, {
      key: null,
      headers: { cookie, origin: 'http://localhost:80' },
      body: { kind: 'terminal' },
    });
    expect(created.status, created.text).toBe(201);
    const session = created.json.data as Session;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v2/sessions/${session.id}/attach`, {
      headers: { cookie, origin: `http://127.0.0.1:${port}` },
    });
    const closed = new Promise<number>((resolve) => {
      ws.on('close', (code) => {
        resolve(code);
      });
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });

    const demoted = await t.request('PATCH', `/api/auth/users/${userId}`, { body: { role: 'viewer' } });
    expect(demoted.status, demoted.text).toBe(200);
    expect(await closed).toBe(sessionCloseCodes.credentialEnded);
    await t.request('DELETE', `/api/v2/sessions/${session.id}`);
  });

  it('policy.interactive_enabled turned off closes attached terminals with 4003, as desktops', async () => {
    const key = await t.createKey({ role: 'operator', scopes: ['assets:exec', 'assets:read'] });
    const session = await create(key.raw_key);
    const client = attached(await attach(port, key.raw_key, session.id));
    await typed(client, 'policy');
    const off = await t.request('PATCH', '/api/settings/runtime', {
      body: { 'policy.interactive_enabled': false },
    });
    expect(off.status, off.text).toBe(200);
    try {
      expect(await client.closed).toEqual({
        code: sessionCloseCodes.policyDisabled,
        reason: interactiveTurnedOff,
      });
    } finally {
      await t.request('PATCH', '/api/settings/runtime', { body: { 'policy.interactive_enabled': true } });
    }
    await t.request('DELETE', `/api/v2/sessions/${session.id}`);
  });
});
