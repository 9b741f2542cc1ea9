import { describe, expect, expectTypeOf, it } from 'vitest';
import { routes, type ExecResult } from '@svc/protocol';
import type { TestHub } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import {
  ExecStreamBrokenError,
  SvcApiError,
  buildUrl,
  createClient,
  createRouteClient,
  dispositionFilename,
  encodeBase64,
  type FetchLike,
} from './index.js';

const baseUrl = 'http://hub.test/';

interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  credentials?: string;
}

/** A fetch that hands the request to the hub's app.inject (no port), recording what the SDK sent. */
function injectFetch(t: TestHub, sent: SentRequest[] = [], cookie?: string): FetchLike {
  return async (url, init) => {
    sent.push({ url, ...init });
    // As a browser at this URL sends it: its host, and for a console session the cookie and the Origin.
    const target = new URL(url);
    const headers: Record<string, string> = {
      ...init.headers,
      host: target.host,
      'x-forwarded-proto': target.protocol.replace(':', ''),
      ...(cookie ? { cookie, origin: target.origin } : {}),
    };
    const { pathname, search } = new URL(url);
    const res = await t.hub.app.inject({
      method: init.method as 'GET',
      url: pathname + search,
      headers,
      ...(init.body !== undefined ? { payload: init.body } : {}),
      remoteAddress: '127.0.0.1',
    });
    return {
      status: res.statusCode,
      text: () => Promise.resolve(res.body),
      arrayBuffer: () => Promise.resolve(new Uint8Array(res.rawPayload).buffer),
      headers: { get: (name: string) => (res.headers[name.toLowerCase()] as string | undefined) ?? null },
    };
  };
}

describe('@svc/sdk client', () => {
  const hub = useTestHub({}, 'per-test');

  it('calls whoami with the key as a bearer token', async () => {
    const t = hub();
    const sent: SentRequest[] = [];
    const client = createClient({ baseUrl, apiKey: t.ownerKey, fetch: injectFetch(t, sent) });

    const { data } = await client.call('whoami');

    expect(data.role).toBe('owner');
    expect(data.auth_type).toBe('api_key');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      method: 'GET',
      url: 'http://hub.test/api/v2/whoami',
      headers: { authorization: `Bearer ${t.ownerKey}`, accept: 'application/json' },
    });
    expect(sent[0]?.body).toBeUndefined();
  });

  it('creates a key whose raw text works in a second client', async () => {
    const t = hub();
    const owner = createClient({ baseUrl, apiKey: t.ownerKey, fetch: injectFetch(t) });

    const { data: key } = await owner.call('keys.create', {
      body: { name: 'sdk', role: 'operator', scopes: ['assets:read', 'search:read'] },
    });
    const second = createClient({ baseUrl, apiKey: key.raw_key, fetch: injectFetch(t) });
    const { data: me } = await second.call('whoami');

    expect(me).toMatchObject({ role: 'operator', key_id: key.id, scopes: ['assets:read', 'search:read'] });
    const denied = await second.call('groups.list').catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(SvcApiError);
    expect((denied as SvcApiError).status).toBe(403);
    expect((denied as SvcApiError).body.error).toBe('insufficient_scope');
  });

  it('creates and lists assets with query filters and paging', async () => {
    const t = hub();
    const sent: SentRequest[] = [];
    const client = createClient({ baseUrl, apiKey: t.ownerKey, fetch: injectFetch(t, sent) });

    const { data: web } = await client.call('assets.create', {
      body: { name: 'web-1', platform: 'linux', tags: ['prod'] },
    });
    await client.call('assets.create', { body: { name: 'web-2', platform: 'linux' } });
    await client.call('assets.create', { body: { name: 'desk', platform: 'windows' } });
    const linuxPage = await client.call('assets.list', { query: { platform: 'linux', per_page: 1 } });
    const windows = await client.call('assets.list', { query: { platform: 'windows' } });

    expect(web).toMatchObject({ name: 'web-1', platform: 'linux', status: 'unknown', tags: ['prod'] });
    expect(sent[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent[0]?.body ?? '{}')).toEqual({ name: 'web-1', platform: 'linux', tags: ['prod'] });
    expect(linuxPage.meta).toEqual({ total: 2, page: 1, per_page: 1 });
    expect(linuxPage.data).toHaveLength(1);
    expect(linuxPage.data[0]?.platform).toBe('linux');
    expect(windows.data.map((a) => a.name)).toEqual(['desk']);
    expect(sent[3]?.url).toBe('http://hub.test/api/v2/assets?platform=linux&per_page=1');
  });

  it('creates groups and searches across assets and groups', async () => {
    const t = hub();
    const client = createClient({ baseUrl, apiKey: t.ownerKey, fetch: injectFetch(t) });
    const { data: asset } = await client.call('assets.create', { body: { name: 'nas-main' } });
    await client.call('assets.create', { body: { name: 'printer' } });

    const { data: group } = await client.call('groups.create', {
      body: { name: 'nas boxes', asset_ids: [asset.id] },
    });
    const all = await client.call('search', { query: { q: 'nas' } });
    const groupsOnly = await client.call('search', { query: { q: 'nas', type: 'group' } });

    expect(group).toMatchObject({ name: 'nas boxes', asset_ids: [asset.id] });
    expect(all.data.map((h) => `${h.type}:${h.id}`).sort()).toEqual(
      [`asset:${asset.id}`, `group:${group.id}`].sort(),
    );
    expect(all.meta.total).toBe(2);
    expect(groupsOnly.data.map((h) => h.id)).toEqual([group.id]);
  });

  it('creates, filters and removes maintenance windows, typed from their contracts', async () => {
    const t = hub();
    const client = createClient({ baseUrl, apiKey: t.ownerKey, fetch: injectFetch(t) });
    const { data: asset } = await client.call('assets.create', { body: { name: 'sdk-maint' } });
    const start = t.clock.now();
    const { data: window } = await client.call('maintenance.create', {
      body: {
        name: 'sdk window',
        reason: 'from the SDK',
        asset_ids: [asset.id],
        starts_at: start.toISOString(),
        ends_at: new Date(start.getTime() + 3_600_000).toISOString(),
      },
    });
    expectTypeOf(window.kind).toEqualTypeOf<'one_off' | 'recurring'>();
    expect(window.current).not.toBeNull();
    const active = await client.call('maintenance.list', { query: { asset: asset.id, active: true } });
    expect(active.data.map((w) => w.id)).toEqual([window.id]);
    expect((await client.call('maintenance.active')).data).toEqual([
      { asset_id: asset.id, window_ids: [window.id], until: window.ends_at },
    ]);
    await client.call('maintenance.delete', { params: { id: window.id } });
    expect((await client.call('maintenance.list', { query: {} })).meta.total).toBe(0);
  });

  it('throws SvcApiError carrying the status and the error envelope', async () => {
    const t = hub();
    const client = createClient({ baseUrl, apiKey: t.ownerKey, fetch: injectFetch(t) });

    const missing = await client
      .call('assets.get', { params: { id: 'ast_01jd7k2m3n4p5q6r7s8t9v0wxy' } })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SvcApiError);
    expect(missing).toMatchObject({
      name: 'SvcApiError',
      status: 404,
      body: { error: 'not_found', status: 404 },
    });
    expect((missing as SvcApiError).body.request_id).toEqual(expect.any(String));
    expect((missing as SvcApiError).message).toContain('404 not_found');

    const badKey = createClient({ baseUrl, apiKey: 'svc_abcd_notarealkey', fetch: injectFetch(t) });
    const denied = await badKey.call('whoami').catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(SvcApiError);
    expect(denied).toMatchObject({ status: 401, body: { error: 'unauthorized', status: 401 } });

    const anonymous = createClient({ baseUrl, fetch: injectFetch(t) });
    await expect(anonymous.call('whoami')).rejects.toMatchObject({ status: 401 });

    const invalid = await client.call('assets.create', { body: { name: '' } }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, body: { error: 'validation' } });
  });

  it('returns the OpenAPI document as it is, typed unknown (it has no envelope)', async () => {
    const t = hub();
    const client = createClient({ baseUrl, fetch: injectFetch(t) });

    const doc = await client.call('hub.openapi');

    expectTypeOf(doc).toEqualTypeOf<unknown>();
    expect(doc).toMatchObject({ openapi: '3.1.0' });
    expect(doc).not.toHaveProperty('data');
  });

  it('keeps an id with "/" in one path segment', async () => {
    const t = hub();
    const client = createClient({ baseUrl, apiKey: t.ownerKey, fetch: injectFetch(t) });

    const error = await client.call('assets.get', { params: { id: '../keys' } }).catch((e: unknown) => e);

    // a 404 for the asset, not the key list nor a 405 from another route
    expect(error).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });

  it('rejects a missing path parameter before sending anything', async () => {
    const t = hub();
    const sent: SentRequest[] = [];
    const client = createClient({ baseUrl, apiKey: t.ownerKey, fetch: injectFetch(t, sent) });

    await expect(client.call('assets.get', {})).rejects.toThrow(TypeError);
    expect(sent).toHaveLength(0);
  });

  it('asks for a blast radius and an incident review, typed from their contracts', async () => {
    const t = hub();
    const client = createClient({ baseUrl, apiKey: t.ownerKey, fetch: injectFetch(t) });
    const db = await t.createAsset({ name: 'db' });
    const app = await t.createAsset({ name: 'app' });
    await client.call('dependencies.createLink', { body: { from: app.id, to: db.id } });

    const { data } = await client.call('dependencies.blastRadius', {
      params: { id: db.id },
      query: { max_depth: 3 },
    });

    expectTypeOf(data.dependents[0]?.depth).toEqualTypeOf<number | undefined>();
    expect(data).toMatchObject({ total: 1, direct: 1, max_depth: 3 });
    expect(data.dependents.map((d) => d.name)).toEqual(['app']);
    const missing = await client
      .download('incidents.reviewMarkdown', { params: { id: 'inc_nope' } })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(SvcApiError);
    expect((missing as SvcApiError).status).toBe(404);
  });
});

describe('@svc/sdk streamed fan-out (execStream)', () => {
  const hub = useTestHub({}, 'per-test');

  it('hands each target its result and returns the summary, asking for NDJSON', async () => {
    const t = hub();
    const sent: SentRequest[] = [];
    const client = createClient({ baseUrl, apiKey: t.ownerKey, fetch: injectFetch(t, sent) });
    const a = await t.createAsset({ name: 'cold-1' });
    const b = await t.createAsset({ name: 'cold-2' });
    const results: ExecResult[] = [];

    const summary = await client.execStream(
      { targets: [a.id, b.id], command: 'uptime' },
      { onResult: (result) => results.push(result) },
    );

    expect(sent[0]?.headers.accept).toBe('application/x-ndjson');
    expect(results.map((r) => [r.asset_id, r.status]).sort()).toEqual(
      [
        [a.id, 'offline'],
        [b.id, 'offline'],
      ].sort(),
    );
    expect(summary).toEqual({ total: 2, ok: 0, timeout: 0, offline: 2, error: 0 });
  });

  it('throws the refusal before anything runs, as an SvcApiError', async () => {
    const t = hub();
    const client = createClient({ baseUrl, apiKey: t.ownerKey, fetch: injectFetch(t) });
    const results: ExecResult[] = [];

    const error = await client
      .execStream(
        { targets: ['ast_01jd7k2m3n4p5q6r7s8t9v0wxy'], command: 'true' },
        { onResult: (result) => results.push(result) },
      )
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SvcApiError);
    expect(error).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(results).toEqual([]);
  });
});

describe('@svc/sdk reading an NDJSON stream as it arrives', () => {
  const result = (assetId: string): ExecResult => ({
    asset_id: assetId,
    status: 'ok',
    exit_code: 0,
    stdout: 'line one\nline two\n',
    stderr: '',
    truncated: false,
    duration_ms: 5,
    error: null,
  });

  /** A fetch whose body delivers `pieces` one by one, each when the reader asks for more. */
  function bytesFetch(pieces: Uint8Array[]): FetchLike {
    return () => {
      let index = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const piece = pieces[index];
          index += 1;
          if (piece === undefined) controller.close();
          else controller.enqueue(piece);
        },
      });
      return Promise.resolve({
        status: 200,
        body,
        text: () => Promise.reject(new Error('read as a stream')),
      });
    };
  }
  const streamingFetch = (chunks: string[]) => bytesFetch(chunks.map((c) => new TextEncoder().encode(c)));
  const summaryLine = (ok: number) =>
    `${JSON.stringify({ summary: { total: ok, ok, timeout: 0, offline: 0, error: 0 }, request_id: 'r' })}\n`;

  it('joins lines split across chunks, and a character split across chunks', async () => {
    const text = `${JSON.stringify(result('ast_1'))}\n${JSON.stringify({ ...result('ast_2'), stdout: 'héllo' })}\n${summaryLine(2)}`;
    const bytes = new TextEncoder().encode(text);
    const accent = bytes.indexOf(0xc3); // the first of the two bytes of é
    const results: ExecResult[] = [];

    const summary = await createClient({
      baseUrl,
      fetch: bytesFetch([bytes.slice(0, 10), bytes.slice(10, accent + 1), bytes.slice(accent + 1)]),
    }).execStream({ targets: ['ast_1', 'ast_2'], command: 'x' }, { onResult: (r) => results.push(r) });

    expect(results.map((r) => r.stdout)).toEqual(['line one\nline two\n', 'héllo']);
    expect(summary.ok).toBe(2);
  });

  it('hands results over before the stream ends', async () => {
    const seenAt: number[] = [];
    let pulled = 0;
    const encoder = new TextEncoder();
    const lines = [
      `${JSON.stringify(result('ast_1'))}\n`,
      `${JSON.stringify(result('ast_2'))}\n`,
      summaryLine(2),
    ];
    const fetchLike: FetchLike = () => {
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const line = lines[pulled];
          pulled += 1;
          if (line === undefined) controller.close();
          else controller.enqueue(encoder.encode(line));
        },
      });
      return Promise.resolve({ status: 200, body, text: () => Promise.resolve('') });
    };

    await createClient({ baseUrl, fetch: fetchLike }).execStream(
      { targets: ['ast_1', 'ast_2'], command: 'x' },
      { onResult: () => seenAt.push(pulled) },
    );

    // The first result was handed over when only its own chunk had been pulled.
    expect(seenAt[0]).toBeLessThan(lines.length);
    expect(seenAt).toHaveLength(2);
  });

  it('throws ExecStreamBrokenError for a stream cut inside a line', async () => {
    const results: ExecResult[] = [];
    const fetchLike = streamingFetch([`${JSON.stringify(result('ast_1'))}\n`, '{"asset_id":"ast_2","sta']);

    const error = await createClient({ baseUrl, fetch: fetchLike })
      .execStream({ targets: ['ast_1', 'ast_2'], command: 'x' }, { onResult: (r) => results.push(r) })
      .catch((e: unknown) => e);

    expect(results).toHaveLength(1);
    expect(error).toBeInstanceOf(ExecStreamBrokenError);
    expect((error as ExecStreamBrokenError).received).toBe(1);
  });

  it('throws ExecStreamBrokenError for a stream cut between lines', async () => {
    const fetchLike = streamingFetch([`${JSON.stringify(result('ast_1'))}\n`]);

    const error = await createClient({ baseUrl, fetch: fetchLike })
      .execStream({ targets: ['ast_1', 'ast_2'], command: 'x' }, { onResult: () => undefined })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ExecStreamBrokenError);
    expect((error as ExecStreamBrokenError).received).toBe(1);
  });

  it('passes the abort signal to fetch', async () => {
    const controller = new AbortController();
    let signal: AbortSignal | undefined;
    const fetchLike: FetchLike = (_url, init) => {
      signal = init.signal;
      return Promise.reject(new DOMException('aborted', 'AbortError'));
    };
    controller.abort();

    await expect(
      createClient({ baseUrl, fetch: fetchLike }).execStream(
        { targets: ['ast_1'], command: 'x' },
        { onResult: () => undefined, signal: controller.signal },
      ),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(signal?.aborted).toBe(true);
  });
});

describe('@svc/sdk errors from something other than the hub', () => {
  it('throws SvcApiError, not a JSON parse error, for a non-JSON error answer', async () => {
    const proxy: FetchLike = () =>
      Promise.resolve({ status: 502, text: () => Promise.resolve('<html>Bad Gateway</html>') });
    const client = createClient({ baseUrl, apiKey: 'svc_abcd_x', fetch: proxy });

    const error = await client.call('whoami').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SvcApiError);
    expect(error).toMatchObject({
      status: 502,
      body: { error: 'upstream_error', status: 502, message: '<html>Bad Gateway</html>' },
    });
  });

  it('keeps the status for an empty error answer', async () => {
    const empty: FetchLike = () => Promise.resolve({ status: 403, text: () => Promise.resolve('') });

    const error = await createClient({ baseUrl, fetch: empty })
      .call('whoami')
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ status: 403, body: { error: 'forbidden', status: 403 } });
  });
});

describe('buildUrl', () => {
  it('percent-encodes path parameters', () => {
    expect(buildUrl(routes['assets.get'], { id: 'a/b' })).toBe('/api/v2/assets/a%2Fb');
    expect(buildUrl(routes['containers.logs'], { id: 'ast_1:web/app' })).toBe(
      '/api/v2/container/containers/ast_1%3Aweb%2Fapp/logs',
    );
    expect(buildUrl(routes['assets.get'], { id: '?x=1#y' })).toBe('/api/v2/assets/%3Fx%3D1%23y');
    expect(buildUrl(routes['users.update'], { id: 'usr 1' })).toBe('/api/auth/users/usr%201');
  });

  it('repeats array query values, encodes text and skips null and undefined', () => {
    expect(
      buildUrl(
        routes['assets.list'],
        {},
        { tag: ['a b', 'c&d'], page: 2, status: undefined, platform: null },
      ),
    ).toBe('/api/v2/assets?tag=a+b&tag=c%26d&page=2');
    expect(buildUrl(routes['search'], {}, { q: 'x=y', flag: true })).toBe('/api/v2/search?q=x%3Dy&flag=true');
    expect(buildUrl(routes['assets.list'], {}, {})).toBe('/api/v2/assets');
  });

  it('throws TypeError for a missing or non-text path parameter', () => {
    expect(() => buildUrl(routes['assets.get'])).toThrow(TypeError);
    expect(() => buildUrl(routes['assets.get'], { other: 'x' })).toThrow(/missing path parameter id/);
    expect(() => buildUrl(routes['assets.get'], { id: { toString: () => 'x' } })).toThrow(TypeError);
  });
});

describe('@svc/sdk for the web console', () => {
  const baseUrl = 'https://hub.test';
  const hub = useTestHub({ env: { SVC_TLS_MODE: 'auto' }, injectAsHttps: true }, 'per-test');

  /** A console session: the cookie the browser would hold after signing in. */
  async function sessionCookie(t: TestHub): Promise<string> {
    const res = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'owner', password: t.ownerPassword },
    });
    const cookie = String(res.headers['set-cookie']).split(';')[0] ?? '';
    expect(cookie).toMatch(/^svc_session=/);
    return cookie;
  }

  it('sends no key in session mode and asks the browser for its same-origin cookie', async () => {
    const t = hub();
    const sent: SentRequest[] = [];
    const client = createClient({
      baseUrl: 'http://hub.test',
      fetch: injectFetch(t, sent, await sessionCookie(t)),
    });

    const { data } = await client.call('auth.me');
    const created = await client.call('assets.create', { body: { name: 'from-the-console' } });

    expect(data.username).toBe('owner');
    expect(created.data.name).toBe('from-the-console');
    expect(sent[0]?.credentials).toBe('same-origin');
    expect(sent[0]?.headers).not.toHaveProperty('authorization');
    const keyed = createClient({ baseUrl, apiKey: t.ownerKey, fetch: injectFetch(t, sent) });
    await keyed.call('whoami');
    expect(sent[2]?.credentials).toBeUndefined();
  });

  it('gives the code, the message and the field problems of an error as the hub wrote them', async () => {
    const t = hub();
    const client = createClient({ baseUrl, apiKey: t.ownerKey, fetch: injectFetch(t) });

    const error = await client
      .call('assets.create', { body: { name: 'x', ip_addresses: ['10.0.0.300'] } })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SvcApiError);
    const refused = error as SvcApiError;
    expect(refused.code).toBe('validation');
    expect(refused.hubMessage).toBe(refused.body.message);
    expect(refused.details.map((d) => d.field)).toContain('body.ip_addresses.0');
    const missing = await client
      .call('assets.get', { params: { id: 'ast_01jd7k2m3n4p5q6r7s8t9v0wxy' } })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SvcApiError);
    expect((missing as SvcApiError).details).toEqual([]);
  });

  it('tells onUnauthorized of every 401, and of nothing else', async () => {
    const t = hub();
    const seen: number[] = [];
    const onUnauthorized = (e: SvcApiError) => {
      seen.push(e.status);
    };
    const signedOut = createClient({ baseUrl, fetch: injectFetch(t), onUnauthorized });
    const viewer = (await t.createKey({ role: 'viewer', scopes: ['assets:read'] })).raw_key;
    const readOnly = createClient({ baseUrl, apiKey: viewer, fetch: injectFetch(t), onUnauthorized });

    await expect(signedOut.call('auth.me')).rejects.toMatchObject({ status: 401 });
    await expect(readOnly.call('assets.create', { body: { name: 'no' } })).rejects.toMatchObject({
      status: 403,
      code: 'read_only_role',
    });

    expect(seen).toEqual([401]);
  });

  it('downloads a raw answer as bytes with its type and file name', async () => {
    const t = hub();
    const client = createClient({ baseUrl, fetch: injectFetch(t) });

    const file = await client.download('tls.caCert');

    expect(new TextDecoder().decode(file.bytes)).toContain('-----BEGIN CERTIFICATE-----');
    expect(file.contentType).toContain('application/x-pem-file');
    expect(file.filename).toBe('svc-hub-ca.crt');
  });

  it('downloads from a transport without arrayBuffer or headers, as text', async () => {
    const bare: FetchLike = () => Promise.resolve({ status: 200, text: () => Promise.resolve('plain') });
    const file = await createClient({ baseUrl, fetch: bare }).download('tls.caCert');
    expect(new TextDecoder().decode(file.bytes)).toBe('plain');
    expect(file).toMatchObject({ contentType: null, filename: null });
  });
});

describe('@svc/sdk route client (createRouteClient)', () => {
  it('sends each call where its lookup says, the lookup answering now or later', async () => {
    const sent: { method: string; url: string }[] = [];
    const fetchLike: FetchLike = (url, init) => {
      sent.push({ method: init.method, url });
      return Promise.resolve({ status: 200, text: () => Promise.resolve('{"data":{}}') });
    };
    const client = createRouteClient({ baseUrl, fetch: fetchLike }, (name) =>
      name === 'auth.me' ? routes['auth.me'] : Promise.resolve(routes[name]),
    );

    await client.call('auth.me');
    await client.call('assets.get', { params: { id: 'ast_1' } });

    expect(sent).toEqual([
      { method: 'GET', url: 'http://hub.test/api/auth/me' },
      { method: 'GET', url: 'http://hub.test/api/v2/assets/ast_1' },
    ]);
  });

  it("throws the lookup's failure as the call's (a chunk that did not load)", async () => {
    const client = createRouteClient({ baseUrl }, () => Promise.reject(new Error('chunk failed')));
    await expect(client.call('auth.me')).rejects.toThrow('chunk failed');
  });
});

describe('@svc/sdk helpers', () => {
  it('encodes bytes as base64 the hub decodes, however long', () => {
    const bytes = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7) % 256);
    expect(encodeBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    expect(encodeBase64(new Uint8Array())).toBe('');
  });

  it.each([
    ['attachment; filename="report.txt"', 'report.txt'],
    ['attachment; filename="caf_.txt"; filename*=UTF-8\'\'caf%C3%A9.txt', 'café.txt'],
    ['attachment; filename=plain.bin', 'plain.bin'],
    ["attachment; filename*=UTF-8''%E0%A4%A", null],
    ['inline', null],
    [null, null],
  ])('names the file of Content-Disposition %s', (header, name) => {
    expect(dispositionFilename(header)).toBe(name);
  });
});
