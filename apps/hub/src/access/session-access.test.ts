/**
 * The one ownership rule (session-access.ts) for both kinds of remote session, as outside testers probed it
 * (issue 28): two operator keys made by one admin are two owners. Key A opens a desktop (a real VNC server
 * behind the agent's own `tcp` opener) and a terminal (a fake agent's pty); key B, made by the same admin,
 * can list neither, attach to neither and download neither recording (404, as for an unknown id); an admin
 * key and the admin's console session can. An operator key made by the owner cannot reach the owner's
 * console desktop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  agentChannelPath,
  type DesktopRecordingInfo,
  type DesktopSession,
  type DesktopSessionCreated,
  type Recording,
  type Session,
} from '@svc/protocol';
import {
  echoExec,
  FakeAgent,
  provisionAgents,
  rfbHandshake,
  rfbPixelAt,
  startTestHub,
  startVncServer,
  vncMissing,
  webSocketByteStream,
  type TestHub,
  type VncServer,
} from '@svc/testkit';
import { connectDesktopAgent } from '../testing/desktop-agent.js';
import { attach as attachTerminal, attached } from '../testing/session-attach.js';
import { ownOrigin, sessionCookieOf } from '../testing/two-factor-user.js';

const password = 'own-pw1';
const execScopes = ['assets:exec', 'assets:read'];

describe.skipIf(vncMissing() !== null)('who may use a session: two keys of one creator', () => {
  let t: TestHub;
  let vnc: VncServer;
  let desktopAgent: WebSocket;
  let terminalAgent: FakeAgent;
  let port: number;
  let desktopAsset: string;
  let terminalAsset: string;
  /** Both operator keys are made by the owner (an admin user), with the same scopes. */
  let keyA: { raw: string; id: string };
  let keyB: string;
  let adminKey: string;
  /** The owner's console session. */
  let cookie: string;

  beforeAll(async () => {
    vnc = await startVncServer({ password, colour: [30, 60, 240] });
    t = await startTestHub({ listen: true });
    port = t.servers?.httpPort ?? 0;
    const [desk, term] = await provisionAgents(t.hub, 2, 'own');
    if (!desk || !term) throw new Error('no agents');
    desktopAsset = desk.assetId;
    terminalAsset = term.assetId;
    desktopAgent = await connectDesktopAgent(`ws://127.0.0.1:${String(port)}`, desk.credential, vnc.port);
    terminalAgent = new FakeAgent({
      url: `ws://127.0.0.1:${String(port)}${agentChannelPath}`,
      credential: term.credential,
      terminal: true,
      handlers: { 'exec.run': echoExec },
    });
    await terminalAgent.start();
    const a = await t.createKey({ name: 'key A', role: 'operator', scopes: execScopes });
    keyA = { raw: a.raw_key, id: a.id };
    keyB = (await t.createKey({ name: 'key B', role: 'operator', scopes: execScopes })).raw_key;
    adminKey = (await t.createKey({ name: 'admin key', role: 'admin', scopes: ['*'] })).raw_key;
    const set = await t.request('PUT', `/api/v2/desktop/credentials/${desktopAsset}`, { body: { password } });
    expect(set.status, set.text).toBe(200);
    const login = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'owner', password: t.ownerPassword },
    });
    expect(login.status, login.text).toBe(200);
    cookie = sessionCookieOf(login) ?? '';
    expect(cookie).not.toBe('');
  });
  afterAll(async () => {
    desktopAgent.close();
    terminalAgent.close();
    await t.close();
    await vnc.close();
  });

  /** As a key (bearer), or as the owner's console (cookie, from the hub's own origin). */
  type Caller = { key: string } | 'console';
  const as = (caller: Caller) =>
    caller === 'console' ? { key: null, headers: { cookie, origin: ownOrigin } } : { key: caller.key };

  /** Opens a desktop console; rejects with `refused <status>` when the upgrade is refused. */
  function attachDesktop(path: string, caller: Caller): Promise<WebSocket> {
    const headers: Record<string, string> =
      caller === 'console'
        ? { cookie, origin: `http://127.0.0.1:${String(port)}` }
        : { authorization: `Bearer ${caller.key}` };
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${String(port)}${path}`, { headers });
      ws.once('open', () => {
        resolve(ws);
      });
      ws.once('unexpected-response', (_req, res) => {
        reject(new Error(`refused ${String(res.statusCode)}`));
      });
      ws.once('error', reject);
    });
  }

  /** Sees the real desktop through a console, then leaves (the attach is recorded). */
  async function lookAndLeave(ws: WebSocket): Promise<void> {
    const stream = webSocketByteStream(ws);
    const rfb = await rfbHandshake(stream, password);
    expect(await rfbPixelAt(stream, rfb, 5, 5)).toEqual([30, 60, 240]);
    const closed = new Promise((resolve) => ws.once('close', resolve));
    ws.close();
    await closed;
  }

  const createDesktop = async (caller: Caller): Promise<DesktopSession> => {
    const res = await t.request('POST', `/api/v2/assets/${desktopAsset}/desktop/sessions`, as(caller));
    expect(res.status, res.text).toBe(201);
    return (res.json.data as DesktopSessionCreated).session;
  };
  const createTerminal = async (caller: Caller): Promise<Session> => {
    const res = await t.request('POST', `/api/v2/assets/${terminalAsset}/sessions`, {
      ...as(caller),
      body: { kind: 'terminal', cols: 80, rows: 24 },
    });
    expect(res.status, res.text).toBe(201);
    return res.json.data as Session;
  };
  const desktopIds = async (caller: Caller) => {
    const res = await t.request('GET', '/api/v2/desktop/sessions', as(caller));
    expect(res.status, res.text).toBe(200);
    return (res.json.data as DesktopSession[]).map((s) => s.id);
  };
  const terminalIds = async (caller: Caller) => {
    const res = await t.request('GET', '/api/v2/sessions?state=live', as(caller));
    expect(res.status, res.text).toBe(200);
    return (res.json.data as Session[]).map((s) => s.id);
  };
  const desktopRecordingOf = async (caller: Caller, sessionId: string) => {
    const res = await t.request('GET', '/api/v2/desktop/recordings', as(caller));
    const rows = res.json.data as DesktopRecordingInfo[];
    return rows.find((r) => r.session_id === sessionId && r.ended_at !== null) ?? null;
  };

  it('key B reaches neither key A’s desktop nor its terminal; an admin key and the admin’s console do', async () => {
    const desktop = await createDesktop({ key: keyA.raw });
    // The key itself owns it, as for terminals: not the user who made the key.
    expect(desktop).toMatchObject({ owner_type: 'api_key', owner: keyA.id });
    const terminal = await createTerminal({ key: keyA.raw });
    expect(terminal).toMatchObject({ owner_type: 'api_key', owner_id: keyA.id });

    const b = { key: keyB };
    expect(await desktopIds(b)).not.toContain(desktop.id);
    expect(await terminalIds(b)).not.toContain(terminal.id);
    await expect(attachDesktop(desktop.stream_path, b)).rejects.toThrow('refused 404');
    expect(await attachTerminal(port, keyB, terminal.id)).toMatchObject({
      status: 404,
      body: { error: 'not_found' },
    });

    // A's own consoles, recorded.
    await lookAndLeave(await attachDesktop(desktop.stream_path, { key: keyA.raw }));
    const shell = attached(await attachTerminal(port, keyA.raw, terminal.id));
    shell.ws.send(Buffer.from('echo mine\r'), { binary: true });
    await shell.waitFor(/echo mine/);
    shell.ws.close();
    await shell.closed;
    await expect.poll(() => desktopRecordingOf({ key: keyA.raw }, desktop.id)).not.toBeNull();
    const desktopRecording = (await desktopRecordingOf({ key: keyA.raw }, desktop.id))?.id ?? '';
    const terminalRecording = terminal.recording_id ?? '';
    expect(terminalRecording).not.toBe('');

    // B cannot download them, nor see them listed.
    const desktopFile = `/api/v2/desktop/recordings/${desktopRecording}`;
    const terminalFile = `/api/v2/recordings/${terminalRecording}/cast`;
    expect((await t.request('GET', desktopFile, b)).status).toBe(404);
    expect((await t.request('GET', terminalFile, b)).status).toBe(404);
    expect(await desktopRecordingOf(b, desktop.id)).toBeNull();
    const bRecordings = (await t.request('GET', '/api/v2/recordings', b)).json.data as Recording[];
    expect(bRecordings.map((r) => r.id)).not.toContain(terminalRecording);
    // Nor close them.
    expect((await t.request('DELETE', `/api/v2/desktop/sessions/${desktop.id}`, b)).status).toBe(404);
    expect((await t.request('DELETE', `/api/v2/sessions/${terminal.id}`, b)).status).toBe(404);

    // An admin uses everyone's: the admin key, and the admin's own console session.
    for (const admin of [{ key: adminKey }, 'console'] as const) {
      expect(await desktopIds(admin)).toContain(desktop.id);
      expect(await terminalIds(admin)).toContain(terminal.id);
      expect((await t.request('GET', desktopFile, as(admin))).status).toBe(200);
      expect((await t.request('GET', terminalFile, as(admin))).status).toBe(200);
      await lookAndLeave(await attachDesktop(desktop.stream_path, admin));
    }
    const byAdmin = attached(await attachTerminal(port, adminKey, terminal.id));
    byAdmin.ws.close();
    await byAdmin.closed;

    expect(
      (await t.request('DELETE', `/api/v2/desktop/sessions/${desktop.id}`, { key: keyA.raw })).status,
    ).toBe(200);
    expect((await t.request('DELETE', `/api/v2/sessions/${terminal.id}`, { key: keyA.raw })).status).toBe(
      200,
    );
  });

  it('an operator key the owner made cannot use the owner’s console desktop or terminal', async () => {
    const desktop = await createDesktop('console');
    expect(desktop.owner_type).toBe('session');
    const terminal = await createTerminal('console');
    const a = { key: keyA.raw };

    expect(await desktopIds(a)).not.toContain(desktop.id);
    expect(await terminalIds(a)).not.toContain(terminal.id);
    await expect(attachDesktop(desktop.stream_path, a)).rejects.toThrow('refused 404');
    expect(await attachTerminal(port, keyA.raw, terminal.id)).toMatchObject({ status: 404 });

    // The owner's console recording is the owner's (and admins').
    await lookAndLeave(await attachDesktop(desktop.stream_path, 'console'));
    await expect.poll(() => desktopRecordingOf('console', desktop.id)).not.toBeNull();
    const recording = (await desktopRecordingOf('console', desktop.id))?.id ?? '';
    expect((await t.request('GET', `/api/v2/desktop/recordings/${recording}`, a)).status).toBe(404);
    expect(await desktopRecordingOf(a, desktop.id)).toBeNull();
    expect((await t.request('DELETE', `/api/v2/desktop/sessions/${desktop.id}`, a)).status).toBe(404);

    // Still there for the owner.
    expect(await desktopIds('console')).toContain(desktop.id);
    expect((await t.request('DELETE', `/api/v2/desktop/sessions/${desktop.id}`, as('console'))).status).toBe(
      200,
    );
    expect((await t.request('DELETE', `/api/v2/sessions/${terminal.id}`, as('console'))).status).toBe(200);
  });
});
