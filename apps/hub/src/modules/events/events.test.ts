import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { eventStreamCloseCodes } from '@svc/protocol';
import { ManualClock } from '@svc/hub';
import { startTestHub, type TestHub } from '@svc/testkit';

interface Refusal {
  status: number;
  body: Record<string, unknown>;
}

interface Message {
  id: string;
  type: string;
  ts: string;
  data: { asset_ids: string[] } & Record<string, unknown>;
}

/** A stream client that records what it receives and how it closed. */
interface StreamClient {
  ws: WebSocket;
  messages: Message[];
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves once a message of `type` has arrived (bounded). */
  waitFor(type: string, count?: number, timeoutMs?: number): Promise<Message[]>;
}

function url(port: number, query = ''): string {
  return `ws://127.0.0.1:${port}/api/v2/events/stream${query}`;
}

/** Opens a stream, or returns the hub's refusal (status and envelope) when it answers without upgrading. */
function open(
  port: number,
  headers: Record<string, string>,
  query = '',
  options: WebSocket.ClientOptions = {},
): Promise<StreamClient | Refusal> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url(port, query), { headers, ...options });
    const messages: Message[] = [];
    const closed = new Promise<{ code: number; reason: string }>((done) => {
      ws.on('close', (code, reason) => {
        done({ code, reason: reason.toString() });
      });
    });
    ws.on('message', (data: Buffer) => {
      messages.push(JSON.parse(data.toString('utf8')) as Message);
    });
    ws.on('unexpected-response', (_request, response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> });
      });
    });
    ws.on('error', reject);
    ws.on('open', () => {
      resolve({
        ws,
        messages,
        closed,
        async waitFor(type, count = 1, timeoutMs = 5000) {
          for (let i = 0; i < timeoutMs / 10; i += 1) {
            const found = messages.filter((m) => m.type === type);
            if (found.length >= count) return found;
            await new Promise((r) => setTimeout(r, 10));
          }
          throw new Error(
            `no ${count} × ${type} within ${timeoutMs / 1000} s (got ${messages.map((m) => m.type).join(', ')})`,
          );
        },
      });
    });
  });
}

async function stream(port: number, headers: Record<string, string>, query = '', options = {}) {
  const result = await open(port, headers, query, options);
  if (!('ws' in result)) throw new Error(`refused: ${result.status} ${JSON.stringify(result.body)}`);
  return result;
}

async function refusal(port: number, headers: Record<string, string>, query = ''): Promise<Refusal> {
  const result = await open(port, headers, query);
  if ('ws' in result) {
    result.ws.close();
    throw new Error('the stream opened');
  }
  return result;
}

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Waits (bounded) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`not within 5 s: ${what}`);
}

async function signIn(t: TestHub): Promise<string> {
  const login = await t.request('POST', '/api/auth/login', {
    key: null,
    body: { username: 'owner', password: t.ownerPassword },
  });
  const setCookie = login.headers['set-cookie'];
  const found = (Array.isArray(setCookie) ? setCookie : [String(setCookie)]).find((c) =>
    c.startsWith('svc_session='),
  );
  return (found ?? '').split(';')[0] ?? '';
}

describe('GET /api/v2/events/stream: who may open it, refused before the handshake', () => {
  let t: TestHub;
  let port: number;

  beforeAll(async () => {
    t = await startTestHub({ listen: true, clock: new ManualClock(new Date()) });
    port = t.servers?.httpPort ?? 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it('no credential: 401 in the envelope; a key without events:subscribe: 403', async () => {
    expect(await refusal(port, {})).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    const viewer = (await t.createKey({ role: 'viewer', scopes: ['assets:read'] })).raw_key;
    expect(await refusal(port, bearer(viewer))).toMatchObject({
      status: 403,
      body: { error: 'insufficient_scope' },
    });
  });

  it('an unknown event type or parameter: 400 naming the field, before any handshake', async () => {
    const unknown = await refusal(port, bearer(t.ownerKey), '?types=asset.created,asset.exploded');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'validation', details: [{ field: 'types' }] });
    expect(String(unknown.body.message)).toContain('asset.exploded');
    const extra = await refusal(port, bearer(t.ownerKey), '?since=1');
    expect(extra).toMatchObject({ status: 400, body: { details: [{ field: 'since' }] } });
  });

  it('a plain request without the upgrade: 400 saying how to connect; unknown types 400 there too', async () => {
    const plain = await t.request('GET', '/api/v2/events/stream');
    expect(plain.status).toBe(400);
    expect(plain.json.message).toContain('Upgrade: websocket');
  });

  it('the session cookie: refused from another origin (403), admitted from the hub itself', async () => {
    const cookie = await signIn(t);
    expect(await refusal(port, { Cookie: cookie, Origin: 'https://evil.example' })).toMatchObject({
      status: 403,
    });
    const own = await stream(port, { Cookie: cookie, Origin: `http://127.0.0.1:${port}` });
    own.ws.close();
    await own.closed;
  });
});

describe('events on the stream: {id, type, ts, data}, filtered by type and by what the caller may see', () => {
  let t: TestHub;
  let port: number;

  beforeAll(async () => {
    t = await startTestHub({ listen: true, clock: new ManualClock(new Date()) });
    port = t.servers?.httpPort ?? 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it('an asset created through the API reaches an open stream as asset.created', async () => {
    const client = await stream(port, bearer(t.ownerKey));
    const asset = await t.createAsset({ name: 'live-one' });
    const [message] = await client.waitFor('asset.created');
    expect(message).toMatchObject({ type: 'asset.created', data: { asset_id: asset.id, name: 'live-one' } });
    expect(message?.id).toMatch(/^evt_|^event_|\w+/);
    expect(Number.isNaN(Date.parse(message?.ts ?? ''))).toBe(false);
    client.ws.close();
  });

  it('types= delivers only the named types', async () => {
    const client = await stream(port, bearer(t.ownerKey), '?types=asset.updated');
    const asset = await t.createAsset({ name: 'filtered' });
    expect((await t.request('PUT', `/api/v2/assets/${asset.id}`, { body: { name: 'renamed' } })).status).toBe(
      200,
    );
    await client.waitFor('asset.updated');
    expect(client.messages.map((m) => m.type)).toEqual(['asset.updated']);
    client.ws.close();
  });

  it('a key with allowed_assets receives events about its assets only, and no fleet-level events', async () => {
    const mine = await t.createAsset({ name: 'mine' });
    const other = await t.createAsset({ name: 'other' });
    const restricted = await t.createKey({
      role: 'operator',
      scopes: ['events:subscribe'],
      allowed_assets: [mine.id],
    });
    const client = await stream(port, bearer(restricted.raw_key));
    const owner = await stream(port, bearer(t.ownerKey));
    await t.request('PUT', `/api/v2/assets/${other.id}`, { body: { name: 'other-2' } });
    await t.createKey({ role: 'viewer', scopes: ['assets:read'] });
    await t.request('PUT', `/api/v2/assets/${mine.id}`, { body: { name: 'mine-2' } });
    await owner.waitFor('asset.updated', 2);
    await client.waitFor('asset.updated');
    expect(client.messages.map((m) => [m.type, m.data.asset_ids])).toEqual([['asset.updated', [mine.id]]]);
    expect(owner.messages.map((m) => m.type)).toContain('api_key.created');
    client.ws.close();
    owner.ws.close();
  });

  it('a viewer with events:subscribe sees asset events but not the administration (keys, users)', async () => {
    const viewer = (await t.createKey({ role: 'viewer', scopes: ['events:subscribe'] })).raw_key;
    const client = await stream(port, bearer(viewer));
    await t.createKey({ role: 'viewer', scopes: ['assets:read'] });
    await t.createAsset({ name: 'seen-by-viewer' });
    await client.waitFor('asset.created');
    expect(client.messages.map((m) => m.type)).toEqual(['asset.created']);
    client.ws.close();
  });
});

describe('many clients, one turn of events: each gets exactly what it may see, in order', () => {
  let t: TestHub;
  let port: number;

  beforeAll(async () => {
    t = await startTestHub({ listen: true, clock: new ManualClock(new Date()) });
    port = t.servers?.httpPort ?? 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it('types=, allowed_assets and admin-only events are applied per client to events published together', async () => {
    const a = await t.createAsset({ name: 'a' });
    const b = await t.createAsset({ name: 'b' });
    const onlyA = await t.createKey({
      role: 'operator',
      scopes: ['events:subscribe'],
      allowed_assets: [a.id],
    });
    const aAndB = await t.createKey({
      role: 'operator',
      scopes: ['events:subscribe'],
      allowed_assets: [a.id, b.id],
    });
    const viewerKey = await t.createKey({ role: 'viewer', scopes: ['events:subscribe'] });
    const clients = {
      owner: await stream(port, bearer(t.ownerKey)),
      ownerTyped: await stream(port, bearer(t.ownerKey), '?types=heartbeat.update,api_key.created'),
      onlyA: await stream(port, bearer(onlyA.raw_key)),
      aAndBTyped: await stream(port, bearer(aAndB.raw_key), '?types=heartbeat.update'),
      viewer: await stream(port, bearer(viewerKey.raw_key)),
    };
    // All in one turn of the event loop, so the hub writes them out together.
    const { events } = t.hub;
    const e = [
      events.publish('asset.updated', { asset_ids: [b.id], asset_id: b.id, name: 'b', fields: ['name'] }),
      events.publish('api_key.created', {
        asset_ids: [],
        key_id: 'k1',
        name: 'k',
        prefix: 'svc_k1',
        role: 'viewer',
      }),
      events.publish('heartbeat.update', { asset_ids: [a.id, b.id], asset_id: a.id }),
      events.publish('asset.updated', { asset_ids: [a.id], asset_id: a.id, name: 'a', fields: ['name'] }),
      events.publish('asset.online', { asset_ids: [], asset_id: 'fleet', name: 'fleet-level' }),
      events.publish('heartbeat.update', { asset_ids: [b.id], asset_id: b.id }),
      events.publish('heartbeat.update', { asset_ids: [a.id], asset_id: 'last' }),
    ].map((event) => event.id);
    const expected = {
      owner: [0, 1, 2, 3, 4, 5, 6],
      ownerTyped: [1, 2, 5, 6],
      // Never the admin-only event, never fleet-level ones, never b's.
      onlyA: [2, 3, 6],
      // The event about both of its assets once.
      aAndBTyped: [2, 5, 6],
      // Everything but the administration.
      viewer: [0, 2, 3, 4, 5, 6],
    };
    for (const [name, client] of Object.entries(clients)) {
      await until(
        () => client.messages.some((m) => m.data.asset_id === 'last'),
        `${name} got the last event`,
      );
      await new Promise((r) => setTimeout(r, 20));
      expect(
        client.messages.map((m) => m.id),
        name,
      ).toEqual(expected[name as keyof typeof expected].map((i) => e[i]));
      client.ws.close();
    }
  });
});

describe('the stream ends with its credential', () => {
  let t: TestHub;
  let port: number;

  beforeAll(async () => {
    t = await startTestHub({ listen: true, clock: new ManualClock(new Date()) });
    port = t.servers?.httpPort ?? 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it('a revoked key: its stream closes with 4001; another key stream stays open', async () => {
    const key = await t.createKey({ role: 'operator', scopes: ['events:subscribe'] });
    const client = await stream(port, bearer(key.raw_key));
    const owner = await stream(port, bearer(t.ownerKey));
    expect((await t.request('DELETE', `/api/v2/keys/${key.id}`)).status).toBe(200);
    expect((await client.closed).code).toBe(eventStreamCloseCodes.credentialEnded);
    await t.createAsset({ name: 'after-revoke' });
    await owner.waitFor('asset.created');
    owner.ws.close();
  });

  it('a signed-out session: its stream closes with 4001', async () => {
    const cookie = await signIn(t);
    const client = await stream(port, { Cookie: cookie, Origin: `http://127.0.0.1:${port}` });
    const out = await t.request('POST', '/api/auth/logout', {
      key: null,
      headers: { cookie, origin: 'http://localhost:80' },
    });
    expect(out.status).toBeLessThan(300);
    expect((await client.closed).code).toBe(eventStreamCloseCodes.credentialEnded);
  });

  it("a user's new role ends their sessions, and the sessions' streams", async () => {
    const created = await t.request('POST', '/api/auth/users', {
      body: { username: 'watcher', password: 'a-long-enough-password-1', role: 'viewer' },
    });
    expect(created.status).toBe(201);
    const userId = (created.json.data as { id: string }).id;
    const login = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'watcher', password: 'a-long-enough-password-1' },
    });
    const setCookie = login.headers['set-cookie'];
    const cookie =
      (Array.isArray(setCookie) ? setCookie : [String(setCookie)])
        .find((c) => c.startsWith('svc_session='))
        ?.split(';')[0] ?? '';
    const client = await stream(port, { Cookie: cookie, Origin: `http://127.0.0.1:${port}` });
    expect(
      (await t.request('PATCH', `/api/auth/users/${userId}`, { body: { role: 'operator' } })).status,
    ).toBe(200);
    expect((await client.closed).code).toBe(eventStreamCloseCodes.credentialEnded);
  });
});

describe("the stream follows its key's changes (decision 0049)", () => {
  let t: TestHub;
  let port: number;

  beforeAll(async () => {
    t = await startTestHub({ listen: true, clock: new ManualClock(new Date()) });
    port = t.servers?.httpPort ?? 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it('a key narrowed to fewer allowed_assets stops receiving events about the removed asset at once', async () => {
    const kept = await t.createAsset({ name: 'kept' });
    const removed = await t.createAsset({ name: 'removed' });
    const key = await t.createKey({
      role: 'operator',
      scopes: ['events:subscribe'],
      allowed_assets: [kept.id, removed.id],
    });
    const client = await stream(port, bearer(key.raw_key), '?types=asset.updated');
    await t.request('PUT', `/api/v2/assets/${removed.id}`, { body: { name: 'removed-1' } });
    await client.waitFor('asset.updated');

    const patched = await t.request('PATCH', `/api/v2/keys/${key.id}`, {
      body: { allowed_assets: [kept.id] },
    });
    expect(patched.status, patched.text).toBe(200);
    const owner = await stream(port, bearer(t.ownerKey), '?types=asset.updated');
    await t.request('PUT', `/api/v2/assets/${removed.id}`, { body: { name: 'removed-2' } });
    await t.request('PUT', `/api/v2/assets/${kept.id}`, { body: { name: 'kept-2' } });
    await owner.waitFor('asset.updated', 2);
    await client.waitFor('asset.updated', 2);
    // Still connected, and after the change only the asset it keeps.
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    expect(client.messages.map((m) => m.data.asset_ids)).toEqual([[removed.id], [kept.id]]);
    client.ws.close();
    owner.ws.close();
  });

  it('a key that loses events:subscribe: its stream closes with 4403 saying what it lacks', async () => {
    const key = await t.createKey({ role: 'operator', scopes: ['events:subscribe', 'assets:read'] });
    const client = await stream(port, bearer(key.raw_key));
    // A change that keeps the scope keeps the stream.
    expect((await t.request('PATCH', `/api/v2/keys/${key.id}`, { body: { name: 'renamed' } })).status).toBe(
      200,
    );
    const patched = await t.request('PATCH', `/api/v2/keys/${key.id}`, { body: { scopes: ['assets:read'] } });
    expect(patched.status, patched.text).toBe(200);
    const closed = await client.closed;
    expect(closed.code).toBe(eventStreamCloseCodes.accessWithdrawn);
    expect(closed.reason).toMatch(/^access withdrawn: .*events:subscribe/);
    // Nothing came after the change but the close.
    expect(client.messages).toEqual([]);
  });
});

describe('bursts: a reader that keeps up gets every event, each its own message, in order', () => {
  let t: TestHub;
  let port: number;
  beforeAll(async () => {
    t = await startTestHub({
      listen: true,
      clock: new ManualClock(new Date()),
      // Bounds a burst exceeds: 120 events of about 700 bytes are over both.
      eventStream: { queuedBytes: 64 * 1024, queuedMessages: 100, pingIntervalMs: 60_000 },
    });
    port = t.servers?.httpPort ?? 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it('a burst over the message and byte bounds, published in one turn, arrives whole and the client stays', async () => {
    const client = await stream(port, bearer(t.ownerKey), '?types=heartbeat.update');
    const assetIds = Array.from({ length: 20 }, (_, i) => `ast_${String(i).padStart(26, '0')}`);
    const published = Array.from(
      { length: 120 },
      (_, i) => t.hub.events.publish('heartbeat.update', { asset_ids: assetIds, asset_id: `ast_${i}` }).id,
    );
    await client.waitFor('heartbeat.update', published.length);
    // One message per event (each parsed on its own), in the order published, nothing else.
    expect(client.messages.map((m) => m.id)).toEqual(published);
    expect(client.messages.map((m) => m.data.asset_id)).toEqual(published.map((_, i) => `ast_${i}`));
    expect(t.hub.eventStream.droppedCount()).toBe(0);
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    client.ws.close();
  });

  it('events published over many turns while writes are held back arrive in order, to each client what it asked for', async () => {
    const all = await stream(port, bearer(t.ownerKey));
    const online = await stream(port, bearer(t.ownerKey), '?types=asset.online');
    const published: { id: string; type: string }[] = [];
    for (let turn = 0; turn < 20; turn += 1) {
      for (let i = 0; i < 10; i += 1) {
        const n = turn * 10 + i;
        const event =
          n % 2 === 0
            ? t.hub.events.publish('asset.online', { asset_ids: [], asset_id: `ast_${n}`, name: 'node' })
            : t.hub.events.publish('heartbeat.update', { asset_ids: [], asset_id: `ast_${n}` });
        published.push({ id: event.id, type: event.type });
      }
      await new Promise((r) => setImmediate(r));
    }
    await all.waitFor('heartbeat.update', 100);
    await online.waitFor('asset.online', 100);
    await new Promise((r) => setTimeout(r, 20));
    expect(all.messages.map((m) => m.id)).toEqual(published.map((e) => e.id));
    expect(online.messages.map((m) => m.id)).toEqual(
      published.filter((e) => e.type === 'asset.online').map((e) => e.id),
    );
    all.ws.close();
    online.ws.close();
  });
});

describe('a slow or silent client never holds the hub or other clients', () => {
  let t: TestHub;
  let port: number;

  beforeAll(async () => {
    t = await startTestHub({
      listen: true,
      clock: new ManualClock(new Date()),
      eventStream: {
        queuedBytes: 256 * 1024,
        queuedMessages: 10_000,
        // Long enough that the stalled client is dropped for its queue, not cut for a missed ping, on a busy machine.
        pingIntervalMs: 60_000,
        closeGraceMs: 10_000,
      },
    });
    port = t.servers?.httpPort ?? 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it('a client that stops reading is dropped with 4008 while a fast one receives every event', async () => {
    const slow = await stream(port, bearer(t.ownerKey));
    const fast = await stream(port, bearer(t.ownerKey));
    slow.ws.pause();
    // Large events (many asset ids) fill the slow client's socket; how many it takes depends on the kernel's
    // socket buffers (tcp_rmem reaches 32 MiB on some machines), so publish until the hub drops it, bounded.
    const assetIds = Array.from({ length: 2000 }, (_, i) => `ast_${String(i).padStart(20, '0')}`);
    let total = 0;
    const published: string[] = [];
    while (t.hub.eventStream.droppedCount() === 0 && total < 5000) {
      published.push(
        t.hub.events.publish('heartbeat.update', { asset_ids: assetIds, asset_id: `ast_${total}` }).id,
      );
      total += 1;
      // A publisher yields between events, as the hub's own do; a fast reader keeps up.
      await new Promise((r) => setImmediate(r));
    }
    await fast.waitFor('heartbeat.update', total, 30_000);
    // Every event, in the order published.
    expect(fast.messages.map((m) => m.id)).toEqual(published);
    expect(t.hub.eventStream.droppedCount()).toBe(1);
    slow.ws.resume();
    expect((await slow.closed).code).toBe(eventStreamCloseCodes.slowClient);
    expect(slow.messages.length).toBeLessThan(total);
    expect(t.hub.eventStream.clientCount()).toBe(1);
    fast.ws.close();
  }, 60_000);

  it('an inbound frame over the cap closes the stream with 1009', async () => {
    const client = await stream(port, bearer(t.ownerKey));
    client.ws.send('x'.repeat(8192));
    expect((await client.closed).code).toBe(1009);
    await until(() => t.hub.eventStream.clientCount() === 0, 'the client is gone');
  });
});

describe('a client that does not answer pings', () => {
  let t: TestHub;
  let port: number;

  beforeAll(async () => {
    t = await startTestHub({
      listen: true,
      clock: new ManualClock(new Date()),
      eventStream: { pingIntervalMs: 200 },
    });
    port = t.servers?.httpPort ?? 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it('is cut; one that does stays', async () => {
    const silent = await stream(port, bearer(t.ownerKey), '', { autoPong: false });
    const alive = await stream(port, bearer(t.ownerKey));
    expect((await silent.closed).code).toBe(1006);
    expect(alive.ws.readyState).toBe(WebSocket.OPEN);
    alive.ws.close();
  });
});
