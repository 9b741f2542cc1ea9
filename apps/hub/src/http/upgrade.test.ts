import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@svc/hub';
import { startTestHub, type TestHub } from '@svc/testkit';

interface Answer {
  status: number;
  headers: Map<string, string>;
  json: Record<string, unknown>;
}

/**
 * Sends one WebSocket upgrade request on a fresh loopback connection and reads the answer until the hub
 * closes it. A refusal is a whole HTTP answer: a status line other than 101, the envelope, then close. An
 * admitted upgrade (101) is read up to its headers, then the connection is dropped.
 */
function upgrade(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  secure = false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const lines = [
      `GET ${path} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version: 13',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    const request = `${lines.join('\r\n')}\r\n\r\n`;
    const socket: net.Socket = secure
      ? tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => socket.write(request))
      : net.connect({ host: '127.0.0.1', port }, () => socket.write(request));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.startsWith('HTTP/1.1 101') && text.includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...rest] = head.split('\r\n');
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers: new Map(
          rest.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
        ),
        json: body ? (JSON.parse(body) as Record<string, unknown>) : {},
      });
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
  });
}

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/**
 * Sends an upgrade request and keeps this side open after the answer, as a client hoarding sockets would; then
 * keeps writing. Resolves true once the hub has closed the connection (a write fails), false if it is still
 * taking bytes after `ms`.
 */
function hubCloses(port: number, path: string, ms = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true }, () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
    });
    let timer: NodeJS.Timeout | undefined;
    const done = (closed: boolean) => {
      clearInterval(timer);
      socket.destroy();
      resolve(closed);
    };
    socket.on('error', () => {
      done(true);
    });
    socket.resume();
    socket.once('end', () => {
      const until = Date.now() + ms;
      timer = setInterval(() => {
        if (Date.now() > until) done(false);
        else socket.write('x');
      }, 20);
    });
  });
}

describe('WebSocket upgrades go through the same credential seam as HTTP routes (plain HTTP on loopback)', () => {
  let t: TestHub;
  let port: number;
  const keys: Record<string, string> = {};
  let cookie: string;

  beforeAll(async () => {
    t = await startTestHub({ listen: true, clock: new ManualClock(new Date()) });
    port = t.servers?.httpPort ?? 0;
    keys.owner = t.ownerKey;
    keys.viewerNoScope = (await t.createKey({ role: 'viewer', scopes: ['assets:read'] })).raw_key;
    keys.viewerSubscriber = (await t.createKey({ role: 'viewer', scopes: ['events:subscribe'] })).raw_key;
    keys.operatorNoScope = (await t.createKey({ role: 'operator', scopes: ['assets:write'] })).raw_key;
    const revoked = await t.createKey({ role: 'admin', scopes: ['events:subscribe'] });
    keys.revoked = revoked.raw_key;
    expect((await t.request('DELETE', `/api/v2/keys/${revoked.id}`)).status).toBe(200);
    keys.garbage = 'svc_abcdef_not-a-real-key-at-all-0000000000000000';
    const login = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'owner', password: t.ownerPassword },
    });
    const setCookie = login.headers['set-cookie'];
    const found = (Array.isArray(setCookie) ? setCookie : [String(setCookie)]).find((c) =>
      c.startsWith('svc_session='),
    );
    if (!found) throw new Error(`no session cookie: ${login.text}`);
    cookie = found.split(';')[0] ?? '';
  });
  afterAll(async () => {
    await t.close();
  });

  it('no credential: 401 in the envelope with WWW-Authenticate: Bearer, before any handshake', async () => {
    const answer = await upgrade(port, '/api/v2/events/stream');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.has('sec-websocket-accept')).toBe(false);
    expect(answer.json).toMatchObject({ status: 401, error: 'unauthorized' });
    expect(answer.json.request_id).toMatch(/^req_/);
  });

  it('the agent channel refuses in the same envelope, with the same headers, as any other upgrade', async () => {
    const answer = await upgrade(port, '/api/v1/agent/channel', bearer('not-an-agent-credential'));
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
    expect(answer.json).toMatchObject({ status: 401, error: 'unauthorized' });
    expect(answer.json.request_id).toMatch(/^req_/);
  });

  it('a refused upgrade is closed by the hub even when the client keeps its side open', async () => {
    expect(await hubCloses(port, '/api/v2/events/stream')).toBe(true);
    expect(await hubCloses(port, '/api/v1/agent/channel')).toBe(true);
  });

  it('the right key passes authentication and authorization, then the handshake completes (101)', async () => {
    const answer = await upgrade(port, '/api/v2/events/stream', bearer(t.ownerKey));
    expect(answer.status).toBe(101);
  });

  it('a viewer key without events:subscribe: 403 insufficient_scope', async () => {
    const answer = await upgrade(port, '/api/v2/events/stream', bearer(keys.viewerNoScope ?? ''));
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({ error: 'insufficient_scope' });
  });

  it('a session cookie from another origin: 403, from the hub itself: admitted', async () => {
    const foreign = await upgrade(port, '/api/v2/events/stream', {
      Cookie: cookie,
      Origin: 'https://evil.example',
    });
    expect(foreign.status).toBe(403);
    expect(foreign.json).toMatchObject({ error: 'forbidden' });
    const none = await upgrade(port, '/api/v2/events/stream', { Cookie: cookie });
    expect(none.status).toBe(403);
    const own = await upgrade(port, '/api/v2/events/stream', {
      Cookie: cookie,
      Origin: `http://127.0.0.1:${port}`,
    });
    expect(own.status).toBe(101);
  });

  it('an unknown path under /api/v2: 401 without a credential, 404 with one (no mapping by probing)', async () => {
    expect((await upgrade(port, '/api/v2/nothing/here')).status).toBe(401);
    const known = await upgrade(port, '/api/v2/nothing/here', bearer(t.ownerKey));
    expect(known.status).toBe(404);
    expect(known.json).toMatchObject({ error: 'not_found' });
  });

  it('a path parameter that is not valid percent-encoding: refused in the envelope, and the hub keeps serving', async () => {
    const answer = await upgrade(port, '/api/v2/sessions/%E0%A4%A/attach', bearer(t.ownerKey));
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'validation' });
    expect((await upgrade(port, '/api/v2/events/stream', bearer(t.ownerKey))).status).toBe(101);
  });

  it('a route that is not a WebSocket endpoint is refused after its own guard', async () => {
    expect((await upgrade(port, '/api/v2/assets')).status).toBe(401);
    expect((await upgrade(port, '/api/v2/assets', bearer(t.ownerKey))).status).toBe(404);
  });

  it.each([
    ['no credential', null, 401],
    ['an unknown key', 'garbage', 401],
    ['a revoked key', 'revoked', 401],
    ['a viewer key without events:subscribe', 'viewerNoScope', 403],
    ['an operator key without events:subscribe', 'operatorNoScope', 403],
  ])('%s: the same status over HTTP and over a WebSocket upgrade', async (_label, which, status) => {
    const key = which === null ? null : (keys[which] ?? '');
    const http = await t.request('GET', '/api/v2/events/stream', { key });
    const ws = await upgrade(port, '/api/v2/events/stream', key === null ? {} : bearer(key));
    expect(http.status).toBe(status);
    expect(ws.status).toBe(status);
    expect(ws.json.error).toBe(http.json.error);
  });

  it.each([
    ['a viewer key with events:subscribe', 'viewerSubscriber'],
    ['the owner key', 'owner'],
  ])(
    '%s: admitted; a plain request is told to upgrade (400), the upgrade completes (101)',
    async (_l, which) => {
      const key = keys[which] ?? '';
      expect((await t.request('GET', '/api/v2/events/stream', { key })).status).toBe(400);
      expect((await upgrade(port, '/api/v2/events/stream', bearer(key))).status).toBe(101);
    },
  );
});

describe('WebSocket upgrades in TLS mode', () => {
  let t: TestHub;

  beforeAll(async () => {
    t = await startTestHub({
      env: { SVC_TLS_MODE: 'auto' },
      listen: true,
      clock: new ManualClock(new Date()),
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a key over plain HTTP: 403 https_required, and no upgrade on the plain port at all', async () => {
    const plainPort = t.servers?.httpPort ?? 0;
    const withKey = await upgrade(plainPort, '/api/v2/events/stream', bearer(t.ownerKey));
    expect(withKey.status).toBe(403);
    expect(withKey.json).toMatchObject({ error: 'https_required' });
    expect((await upgrade(plainPort, '/api/v2/events/stream')).status).toBe(403);
  });

  it('over HTTPS: 401 without a credential (with HSTS), 101 with the key', async () => {
    const tlsPort = t.servers?.httpsPort ?? 0;
    const anonymous = await upgrade(tlsPort, '/api/v2/events/stream', {}, true);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('strict-transport-security')).toBe('max-age=63072000');
    const owner = await upgrade(tlsPort, '/api/v2/events/stream', bearer(t.ownerKey), true);
    expect(owner.status).toBe(101);
  });
});

describe('WebSocket upgrades count against the same rate limits as HTTP requests', () => {
  let t: TestHub;

  beforeAll(async () => {
    t = await startTestHub({
      listen: true,
      rateLimit: { enabled: true, perIpPerMinute: 3, perKeyPerMinute: 1000 },
      clock: new ManualClock(new Date()),
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('an address over its rate: 429 with Retry-After in the envelope, HTTP and upgrades sharing one bucket', async () => {
    const port = t.servers?.httpPort ?? 0;
    // One HTTP request and two upgrades use the three a minute; the next upgrade is over.
    expect((await t.request('GET', '/api/v2/events/stream')).status).toBe(400);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      statuses.push((await upgrade(port, '/api/v2/events/stream', bearer(t.ownerKey))).status);
    }
    expect(statuses).toEqual([101, 101, 429]);
    const refused = await upgrade(port, '/api/v2/events/stream', bearer(t.ownerKey));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.json).toMatchObject({ error: 'rate_limited', status: 429 });
  });
});
