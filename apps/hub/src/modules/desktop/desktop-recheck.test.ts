/**
 * An attached desktop follows its caller and the policy as a terminal does (decision 0049): a key that loses
 * `assets:exec` is closed with 4403; `policy.interactive_enabled` turned off closes the attached desktop and
 * the attached terminal with one close code and one reason. A real VNC server behind the agent's `tcp` opener,
 * and a fake agent's terminal on a second asset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { agentChannelPath, sessionCloseCodes, type DesktopSessionCreated, type Session } from '@svc/protocol';
import {
  echoExec,
  FakeAgent,
  provisionAgents,
  rfbHandshake,
  startTestHub,
  startVncServer,
  vncMissing,
  webSocketByteStream,
  type TestHub,
  type VncServer,
} from '@svc/testkit';
import { connectDesktopAgent } from '../../testing/desktop-agent.js';
import { attach as attachTerminal, attached } from '../../testing/session-attach.js';

const password = 'desk-pw2';

describe.skipIf(vncMissing() !== null)('attached desktops follow their caller and the policy', () => {
  let t: TestHub;
  let vnc: VncServer;
  let desktopAgent: WebSocket;
  let terminalAgent: FakeAgent;
  let desktopAsset: string;
  let terminalAsset: string;
  let base: string;

  beforeAll(async () => {
    vnc = await startVncServer({ password, colour: [20, 200, 250] });
    t = await startTestHub({ listen: true });
    base = `ws://127.0.0.1:${String(t.servers?.httpPort)}`;
    const [desk, term] = await provisionAgents(t.hub, 2, 'drc');
    if (!desk || !term) throw new Error('no agents');
    desktopAsset = desk.assetId;
    terminalAsset = term.assetId;
    desktopAgent = await connectDesktopAgent(base, desk.credential, vnc.port);
    terminalAgent = new FakeAgent({
      url: `${base}${agentChannelPath}`,
      credential: term.credential,
      terminal: true,
      handlers: { 'exec.run': echoExec },
    });
    await terminalAgent.start();
    const set = await t.request('PUT', `/api/v2/desktop/credentials/${desktopAsset}`, { body: { password } });
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    desktopAgent.close();
    terminalAgent.close();
    await t.close();
    await vnc.close();
  });

  /** A desktop session of `key`, attached and past the RFB handshake; and how its socket closes. */
  async function attachedDesktop(key: string) {
    const created = await t.request('POST', `/api/v2/assets/${desktopAsset}/desktop/sessions`, { key });
    expect(created.status, created.text).toBe(201);
    const { session } = created.json.data as DesktopSessionCreated;
    const ws = new WebSocket(`${base}${session.stream_path}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      ws.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
      });
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    await rfbHandshake(webSocketByteStream(ws), password);
    return { ws, closed, id: session.id };
  }

  it('a key that loses assets:exec: its attached desktop closes with 4403 saying why', async () => {
    const key = await t.createKey({ role: 'operator', scopes: ['assets:exec', 'assets:read'] });
    const desktop = await attachedDesktop(key.raw_key);
    const patched = await t.request('PATCH', `/api/v2/keys/${key.id}`, { body: { scopes: ['assets:read'] } });
    expect(patched.status, patched.text).toBe(200);
    const closed = await desktop.closed;
    expect(closed.code).toBe(sessionCloseCodes.accessWithdrawn);
    expect(closed.reason).toMatch(/^access withdrawn: .*assets:exec/);
    await t.request('DELETE', `/api/v2/desktop/sessions/${desktop.id}`);
  });

  it('policy.interactive_enabled off closes the attached desktop and terminal with one code and reason', async () => {
    const key = await t.createKey({ role: 'operator', scopes: ['assets:exec', 'assets:read'] });
    const desktop = await attachedDesktop(key.raw_key);
    const created = await t.request('POST', `/api/v2/assets/${terminalAsset}/sessions`, {
      key: key.raw_key,
      body: { kind: 'terminal' },
    });
    expect(created.status, created.text).toBe(201);
    const session = created.json.data as Session;
    const terminal = attached(await attachTerminal(Number(t.servers?.httpPort), key.raw_key, session.id));
    terminal.ws.send(Buffer.from('echo typed\r'), { binary: true });
    await terminal.waitFor(/typed/);

    const off = await t.request('PATCH', '/api/settings/runtime', {
      body: { 'policy.interactive_enabled': false },
    });
    expect(off.status, off.text).toBe(200);
    try {
      const [desktopClosed, terminalClosed] = await Promise.all([desktop.closed, terminal.closed]);
      expect(desktopClosed).toEqual({
        code: sessionCloseCodes.policyDisabled,
        reason: 'interactive sessions were turned off',
      });
      expect(terminalClosed).toEqual(desktopClosed);
    } finally {
      await t.request('PATCH', '/api/settings/runtime', { body: { 'policy.interactive_enabled': true } });
    }
    await t.request('DELETE', `/api/v2/desktop/sessions/${desktop.id}`);
    await t.request('DELETE', `/api/v2/sessions/${session.id}`);
  });
});
