/**
 * Desktop sessions through a listening hub to a real VNC server: the agent end is the agent's own stream host
 * and `tcp` opener on a channel connection, the desktop Xtigervnc with a password the hub holds sealed. The
 * policy refuses creates and attaches at once; another person's session and recording are not there for them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseDesktopRecording, type DesktopSessionCreated } from '@svc/protocol';
import {
  databaseTargets,
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
import { connectDesktopAgent } from '../../testing/desktop-agent.js';
import { createDesktopKeys } from '../../testing/desktop-keys.js';

const password = 'desk-pw1';

describe.skipIf(vncMissing() !== null).each(databaseTargets())('desktop sessions ($name)', ({ options }) => {
  let t: TestHub;
  let vnc: VncServer;
  let agent: WebSocket;
  let assetId: string;
  let offlineId: string;
  let operatorKey: string;
  let otherKey: string;
  let base: string;

  beforeAll(async () => {
    vnc = await startVncServer({ password, colour: [250, 200, 20] });
    t = await startTestHub({ ...options, listen: true });
    base = `ws://127.0.0.1:${String(t.servers?.httpPort)}`;
    const [identity] = await provisionAgents(t.hub, 1, 'desk');
    if (!identity) throw new Error('no agent');
    assetId = identity.assetId;
    offlineId = (await t.createAsset({ name: 'desk-offline' })).id;
    agent = await connectDesktopAgent(base, identity.credential, vnc.port);
    ({ operatorKey, otherKey } = await createDesktopKeys(t));
    const set = await t.request('PUT', `/api/v2/desktop/credentials/${assetId}`, { body: { password } });
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    agent.close();
    await t.close();
    await vnc.close();
  });

  const setPolicy = async (on: boolean) => {
    const res = await t.request('PATCH', '/api/settings/runtime', {
      body: { 'policy.interactive_enabled': on },
    });
    expect(res.status).toBe(200);
  };

  const create = async (key: string) =>
    t.request('POST', `/api/v2/assets/${assetId}/desktop/sessions`, { key });

  function attach(path: string, key: string): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
      ws.once('open', () => {
        resolve(ws);
      });
      ws.once('unexpected-response', (_req, res) => {
        reject(new Error(`refused ${String(res.statusCode)}`));
      });
      ws.once('error', reject);
    });
  }

  it('refuses a create while the policy is off, and on an offline asset', async () => {
    await setPolicy(false);
    const refused = await create(operatorKey);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toContain('policy.interactive_enabled');
    await setPolicy(true);
    const offline = await t.request('POST', `/api/v2/assets/${offlineId}/desktop/sessions`, {
      key: operatorKey,
    });
    expect(offline.status).toBe(409);
    expect(offline.json.error).toBe('asset_offline');
  });

  it('releases the password only in the create, shows the real desktop, and records it', async () => {
    const created = await create(operatorKey);
    expect(created.status).toBe(201);
    const { session, credentials } = created.json.data as DesktopSessionCreated;
    expect(credentials).toEqual({ password, username: null });
    for (const read of [
      await t.request('GET', '/api/v2/desktop/sessions', { key: operatorKey }),
      await t.request('GET', `/api/v2/desktop/credentials/${assetId}`, { key: operatorKey }),
    ]) {
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(password);
    }

    // Someone else's session is not there for them.
    await expect(attach(session.stream_path, otherKey)).rejects.toThrow('refused 404');

    const ws = await attach(session.stream_path, operatorKey);
    const stream = webSocketByteStream(ws);
    const rfb = await rfbHandshake(stream, credentials?.password ?? '');
    expect(await rfbPixelAt(stream, rfb, 100, 100)).toEqual([250, 200, 20]);

    // The policy goes off: the attached console is closed and the next attach refused, at once.
    const closed = new Promise<string>((resolve) => {
      ws.once('close', (_code, reason) => {
        resolve(reason.toString());
      });
    });
    await setPolicy(false);
    expect(await closed).toBe('interactive sessions were turned off');
    await expect(attach(session.stream_path, operatorKey)).rejects.toThrow('refused 403');
    await setPolicy(true);

    const finished = async () => {
      const list = await t.request('GET', '/api/v2/desktop/recordings', { key: operatorKey });
      const rows = list.json.data as { id: string; session_id: string; ended_at: string | null }[];
      return rows.find((r) => r.session_id === session.id && r.ended_at !== null)?.id ?? null;
    };
    await expect.poll(finished).not.toBeNull();
    const id = await finished();
    if (!id) throw new Error('no recording');
    const file = await t.hub.app.inject({
      method: 'GET',
      url: `/api/v2/desktop/recordings/${id}`,
      headers: { authorization: `Bearer ${operatorKey}` },
    });
    expect(file.statusCode).toBe(200);
    const parsed = parseDesktopRecording(new Uint8Array(file.rawPayload));
    if (!parsed.ok) throw new Error(parsed.message);
    const first = Buffer.from(parsed.value.frames[0]?.bytes ?? []);
    expect([first.readUInt16BE(0), first.readUInt16BE(2)]).toEqual([320, 200]);
    // Stored in the database, where every hub process reads it (decision 0043), not in this one's files.
    const chunkRows = () =>
      t.hub.database.db
        .selectFrom('desktop_recording_chunks')
        .select('seq')
        .where('recording_id', '=', id)
        .execute();
    expect((await chunkRows()).length).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(t.dataDir, 'recordings', 'desktop', `${id}.svcrfb`))).toBe(false);
    expect((await t.request('GET', `/api/v2/desktop/recordings/${id}`, { key: otherKey })).status).toBe(404);
    expect((await t.request('GET', `/api/v2/desktop/recordings/${id}`)).status).toBe(200);
    const others = await t.request('GET', '/api/v2/desktop/recordings', { key: otherKey });
    expect(others.json.data).toEqual([]);

    const audit = await t.request('GET', '/api/v2/audit/events?per_page=100');
    const actions = (audit.json.data as { action: string }[]).map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'desktop.session_started',
        'desktop.session_attached',
        'desktop.recording_accessed',
      ]),
    );
    expect(audit.text).not.toContain(password);

    // Retention: 31 days on, the recording and its chunks are gone.
    t.clock.advance(31 * 24 * 3600 * 1000);
    await t.hub.retention.runOnce();
    expect((await t.request('GET', '/api/v2/desktop/recordings', { key: operatorKey })).json.data).toEqual(
      [],
    );
    expect((await t.request('GET', `/api/v2/desktop/recordings/${id}`, { key: operatorKey })).status).toBe(
      404,
    );
    expect(await chunkRows()).toEqual([]);

    const ended = await t.request('DELETE', `/api/v2/desktop/sessions/${session.id}`, { key: operatorKey });
    expect(ended.status).toBe(200);
    expect((await t.request('GET', '/api/v2/desktop/sessions', { key: operatorKey })).json.data).toEqual([]);
  });
});
