/**
 * Desktop sessions across two hub processes (decision 0043): one PostgreSQL schema, one in-memory cluster
 * network, a real VNC server behind an agent on hub A. A session created on A is listed, attached and closed
 * through B, with the same checks; a console on B is relayed to A, which keeps it (decision 0058); a console
 * on one process replaces the other's; the recording of a console attached through B is read through A; once A is gone, B knows the session no more. Another key of the same creator reaches none of
 * it on either process. Runs where PostgreSQL and Xtigervnc are.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { DesktopSession, DesktopSessionCreated } from '@svc/protocol';
import {
  provisionAgents,
  rfbHandshake,
  rfbPixelAt,
  startVncServer,
  vncMissing,
  webSocketByteStream,
  type TestHub,
  type VncServer,
} from '@svc/testkit';
import { connectDesktopAgent } from '../../testing/desktop-agent.js';
import { createDesktopKeys } from '../../testing/desktop-keys.js';
import { startMemoryCluster, type MemoryCluster } from '../../testing/memory-cluster.js';
import { desktopCloseCodes } from './desktop-relay.js';

const postgresUrl = process.env.SVC_TEST_DATABASE_URL;
const password = 'desk-pw2';

describe.skipIf(!postgresUrl || vncMissing() !== null)('desktop sessions across hub processes', () => {
  let cluster: MemoryCluster;
  let vnc: VncServer;
  let hubs: TestHub[];
  let agent: WebSocket;
  let assetId: string;
  let operatorKey: string;
  let otherKey: string;

  const baseOf = (hub: TestHub) => cluster.baseOf(hub);

  function attach(hub: TestHub, path: string, key: string): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${baseOf(hub)}${path}`, { headers: { authorization: `Bearer ${key}` } });
      ws.once('open', () => {
        resolve(ws);
      });
      ws.once('unexpected-response', (_req, res) => {
        reject(new Error(`refused ${String(res.statusCode)}`));
      });
      ws.once('error', reject);
    });
  }

  const closeOf = (ws: WebSocket) =>
    new Promise<{ code: number; reason: string }>((resolve) => {
      ws.once('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
      });
    });

  beforeEach(async () => {
    cluster = await startMemoryCluster(postgresUrl ?? '');
    hubs = cluster.hubs;
    vnc = await startVncServer({ password, colour: [20, 180, 90] });
    const a = await cluster.startHub('a');
    const b = await cluster.startHub('b');
    const [identity] = await provisionAgents(a.hub, 1, 'dskc');
    if (!identity) throw new Error('no agent');
    assetId = identity.assetId;
    agent = await connectDesktopAgent(baseOf(a), identity.credential, vnc.port);
    await expect.poll(() => b.hub.gateway.isConnected(assetId)).toBe(true);
    ({ operatorKey, otherKey } = await createDesktopKeys(b));
    // Sealed by A, which opens it: each test hub has its own secret key.
    const admin = (await b.createKey({ role: 'admin', scopes: ['*'] })).raw_key;
    const set = await a.request('PUT', `/api/v2/desktop/credentials/${assetId}`, {
      key: admin,
      body: { password },
    });
    expect(set.status).toBe(200);
  });

  afterEach(async () => {
    agent.close();
    await cluster.close();
    await vnc.close();
  });

  it('attaches through B with B’s checks, replaces consoles across processes, closes through B', async () => {
    const [a, b] = hubs as [TestHub, TestHub];
    const created = await a.request('POST', `/api/v2/assets/${assetId}/desktop/sessions`, {
      key: operatorKey,
    });
    expect(created.status, created.text).toBe(201);
    const { session } = created.json.data as DesktopSessionCreated;

    const listed = await b.request('GET', '/api/v2/desktop/sessions', { key: operatorKey });
    expect((listed.json.data as DesktopSession[]).map((s) => s.id)).toEqual([session.id]);
    expect((await b.request('GET', '/api/v2/desktop/sessions', { key: otherKey })).json.data).toEqual([]);
    await expect(attach(b, session.stream_path, otherKey)).rejects.toThrow('refused 404');

    const viaB = await attach(b, session.stream_path, operatorKey);
    const stream = webSocketByteStream(viaB);
    const rfb = await rfbHandshake(stream, password);
    expect(await rfbPixelAt(stream, rfb, 10, 10)).toEqual([20, 180, 90]);

    // A console on A takes the session: B's closes.
    const bClosed = closeOf(viaB);
    const onA = await attach(a, session.stream_path, operatorKey);
    expect((await bClosed).reason).toBe('replaced by a new console');

    // The recording made through B is read through A.
    const recordingOf = async () => {
      const list = await a.request('GET', '/api/v2/desktop/recordings', { key: operatorKey });
      const rows = list.json.data as { id: string; session_id: string; ended_at: string | null }[];
      return rows.find((r) => r.session_id === session.id && r.ended_at !== null)?.id ?? null;
    };
    await expect.poll(recordingOf).not.toBeNull();
    const file = await a.request('GET', `/api/v2/desktop/recordings/${(await recordingOf()) ?? ''}`, {
      key: operatorKey,
    });
    expect(file.status).toBe(200);
    // Another key of the same creator is another owner (issue 28): not theirs, on either process.
    const recording = `/api/v2/desktop/recordings/${(await recordingOf()) ?? ''}`;
    expect((await a.request('GET', recording, { key: otherKey })).status).toBe(404);
    expect((await b.request('GET', recording, { key: otherKey })).status).toBe(404);
    const closeUrl = `/api/v2/desktop/sessions/${session.id}`;
    expect((await b.request('DELETE', closeUrl, { key: otherKey })).status).toBe(404);

    // Closing through B ends it on A.
    const aClosed = closeOf(onA);
    const closed = await b.request('DELETE', `/api/v2/desktop/sessions/${session.id}`, { key: operatorKey });
    expect(closed.status, closed.text).toBe(200);
    await aClosed;
    expect((await a.request('GET', '/api/v2/desktop/sessions', { key: operatorKey })).json.data).toEqual([]);
    await expect.poll(async () => (await b.request('GET', '/api/v2/desktop/sessions')).json.data).toEqual([]);
  });

  it('relays a console on B to the owner A, which keeps it; the policy turned off closes it with 4003', async () => {
    const [a, b] = hubs as [TestHub, TestHub];
    const created = await a.request('POST', `/api/v2/assets/${assetId}/desktop/sessions`, {
      key: operatorKey,
    });
    const { session } = created.json.data as DesktopSessionCreated;
    const viaB = await attach(b, session.stream_path, operatorKey);
    const stream = webSocketByteStream(viaB);
    const rfb = await rfbHandshake(stream, password);
    expect(await rfbPixelAt(stream, rfb, 10, 10)).toEqual([20, 180, 90]);
    // The owner holds the console attached through B (decision 0058): it shows it attached.
    const onA = (await a.request('GET', '/api/v2/desktop/sessions', { key: operatorKey })).json
      .data as DesktopSession[];
    expect(onA.map((s) => [s.id, s.attached])).toEqual([[session.id, true]]);

    const bClosed = closeOf(viaB);
    const off = await a.request('PATCH', '/api/settings/runtime', {
      key: b.ownerKey,
      body: { 'policy.interactive_enabled': false },
    });
    expect(off.status, off.text).toBe(200);
    expect(await bClosed).toEqual({
      code: desktopCloseCodes.policyDisabled,
      reason: 'interactive sessions were turned off',
    });
  });

  it('closes B’s console and forgets the session when A goes away', async () => {
    const [a, b] = hubs as [TestHub, TestHub];
    const created = await a.request('POST', `/api/v2/assets/${assetId}/desktop/sessions`, {
      key: operatorKey,
    });
    const { session } = created.json.data as DesktopSessionCreated;
    const viaB = await attach(b, session.stream_path, operatorKey);
    await rfbHandshake(webSocketByteStream(viaB), password);

    const bClosed = closeOf(viaB);
    await cluster.kill(a, b);
    // The desktop ends (its agent was on A too, so its stream may be the first to say so).
    expect((await bClosed).code).toBe(desktopCloseCodes.ended);
    await expect(attach(b, session.stream_path, operatorKey)).rejects.toThrow('refused 404');
    expect((await b.request('GET', '/api/v2/desktop/sessions', { key: operatorKey })).json.data).toEqual([]);
  });
});
