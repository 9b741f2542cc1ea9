/**
 * The HTTP guard seen from outside: keys only over HTTPS (or loopback in TLS-disabled mode, or a trusted
 * proxy that says https), where a key may be sent, unknown paths and methods, body limits and media types,
 * and what error responses never contain. Everything goes through inject(); no traffic leaves the process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullPath, limits, routeList, type RouteContract } from '@svc/protocol';
import { databaseTargets, startTestHub, type InjectResult, type TestHub } from '@svc/testkit';

const afar = '203.0.113.9';
const elsewhere = '198.51.100.7';

function expectError(res: InjectResult, status: number, error: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.json).toMatchObject({ error, status });
  expect(res.json.request_id).toMatch(/^req_[0-9a-z]{26}$/);
  expect(typeof res.json.message).toBe('string');
  expect(res.json).not.toHaveProperty('data');
  if (status === 401) expect(res.headers['www-authenticate']).toBe('Bearer');
}

async function assetNames(t: TestHub): Promise<string[]> {
  const res = await t.request('GET', '/api/v2/assets?per_page=500');
  expect(res.status).toBe(200);
  return (res.json.data as { name: string }[]).map((a) => a.name);
}

/** A concrete URL for a contract: `{id}` and `{name}` filled in. */
function concretePath(route: Pick<RouteContract, 'surface' | 'path'>): string {
  return fullPath(route)
    .replace('{name}', 'nginx')
    .replace('{domain}', 'runtime')
    .replace(/\{[a-zA-Z_]+\}/g, 'x1');
}

describe.each(databaseTargets())('guard on $name', ({ options }) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(options);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('keys over plain HTTP (TLS disabled, no trusted proxy)', () => {
    it('refuses a key from a non-loopback address with 403 https_required and does not process the request', async () => {
      const before = await assetNames(t);
      const res = await t.request('POST', '/api/v2/assets', {
        body: { name: 'sent-over-plain-http' },
        remoteAddress: afar,
      });
      expectError(res, 403, 'https_required');
      expect(await assetNames(t)).toEqual(before);
      expect(await assetNames(t)).not.toContain('sent-over-plain-http');
      expectError(await t.request('GET', '/api/v2/whoami', { remoteAddress: afar }), 403, 'https_required');
    });

    it('gives the same answer for a valid and an invalid key sent over plain HTTP', async () => {
      const valid = await t.request('GET', '/api/v2/whoami', { remoteAddress: afar });
      const unknown = await t.request('GET', '/api/v2/whoami', {
        key: `svc_abcd_${'a'.repeat(52)}`,
        remoteAddress: afar,
      });
      expectError(valid, 403, 'https_required');
      expectError(unknown, 403, 'https_required');
      expect(unknown.json.message).toBe(valid.json.message);
    });

    it('accepts keys from loopback clients (IPv4, IPv6 and IPv4-mapped)', async () => {
      for (const remoteAddress of ['127.0.0.1', '127.0.0.53', '::1', '::ffff:127.0.0.1']) {
        const res = await t.request('GET', '/api/v2/whoami', { remoteAddress });
        expect(res.status, remoteAddress).toBe(200);
      }
    });

    it('ignores X-Forwarded-Proto from a client that is not a trusted proxy', async () => {
      const res = await t.request('GET', '/api/v2/whoami', {
        remoteAddress: afar,
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '127.0.0.1' },
      });
      expectError(res, 403, 'https_required');
    });

    it('answers 401, not 403, to a non-loopback request without a key', async () => {
      expectError(
        await t.request('GET', '/api/v2/whoami', { key: null, remoteAddress: afar }),
        401,
        'unauthorized',
      );
    });
  });

  describe('where the key may be', () => {
    it('accepts the Bearer scheme in any case', async () => {
      for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
        const res = await t.request('GET', '/api/v2/whoami', {
          key: null,
          headers: { authorization: `${scheme} ${t.ownerKey}` },
        });
        expect(res.status, scheme).toBe(200);
      }
    });

    it('ignores a key in the query string or in any other header (401)', async () => {
      const key = encodeURIComponent(t.ownerKey);
      for (const query of ['api_key', 'key', 'token', 'access_token', 'authorization']) {
        const res = await t.request('GET', `/api/v2/whoami?${query}=${key}`, { key: null });
        expectError(res, 401, 'unauthorized');
      }
      const elsewhereHeaders: Record<string, string>[] = [
        { 'x-api-key': t.ownerKey },
        { 'api-key': t.ownerKey },
        { 'x-auth-token': t.ownerKey },
        { 'proxy-authorization': `Bearer ${t.ownerKey}` },
        { cookie: `svc_session=${t.ownerKey}; api_key=${t.ownerKey}` },
      ];
      for (const headers of elsewhereHeaders) {
        const res = await t.request('GET', '/api/v2/whoami', { key: null, headers });
        expectError(res, 401, 'unauthorized');
      }
    });
  });

  describe('unknown paths and methods', () => {
    it('answers 401 under /api/v2 without a key, and 404 not_found with one', async () => {
      for (const path of ['/api/v2/nope', '/api/v2/assets/x1/nope', '/api/v2/keys/x1/y/z', '/api/v2/admin']) {
        expectError(await t.request('GET', path, { key: null }), 401, 'unauthorized');
        expectError(await t.request('POST', path, { key: null, body: {} }), 401, 'unauthorized');
        expectError(await t.request('GET', path), 404, 'not_found');
      }
    });

    it('answers 405 method_not_allowed with an Allow header for a wrong method on every known path', async () => {
      const methodsByPath = new Map<string, Set<string>>();
      for (const route of routeList) {
        const methods = methodsByPath.get(concretePath(route)) ?? new Set<string>();
        methods.add(route.method);
        methodsByPath.set(concretePath(route), methods);
      }
      const problems: string[] = [];
      for (const [path, methods] of methodsByPath) {
        const wrong = ['DELETE', 'PATCH', 'PUT', 'POST', 'GET'].find((m) => !methods.has(m));
        if (!wrong) continue;
        const res = await t.request(wrong, path);
        const allow = String(res.headers.allow ?? '')
          .split(',')
          .map((m) => m.trim())
          .filter((m) => m && m !== 'HEAD')
          .sort();
        if (res.status !== 405 || res.json.error !== 'method_not_allowed' || res.json.status !== 405)
          problems.push(`${wrong} ${path}: ${res.status} ${res.text.slice(0, 100)}`);
        else if (allow.join(',') !== [...methods].sort().join(','))
          problems.push(
            `${wrong} ${path}: Allow "${String(res.headers.allow)}", expected ${[...methods].join(', ')}`,
          );
        if (path.startsWith('/api/v2/')) {
          const anonymous = await t.request(wrong, path, { key: null });
          if (anonymous.status !== 401) problems.push(`${wrong} ${path} without a key: ${anonymous.status}`);
        }
      }
      expect(problems).toEqual([]);
      expect(methodsByPath.size).toBeGreaterThan(50);
    });
  });

  describe('bodies', () => {
    /** A JSON asset body of exactly `bytes` bytes. */
    function assetBodyOf(bytes: number): string {
      const shell = JSON.stringify({ name: 'big', description: '' });
      return shell.replace('"description":""', `"description":"${'a'.repeat(bytes - shell.length)}"`);
    }

    it('answers 413 payload_too_large above 1 MiB, and takes a body of exactly 1 MiB to validation', async () => {
      expect(limits.bodyBytes).toBe(1024 * 1024);
      const before = await assetNames(t);
      const over = await t.request('POST', '/api/v2/assets', {
        rawBody: assetBodyOf(limits.bodyBytes + 1),
        headers: { 'content-type': 'application/json' },
      });
      expectError(over, 413, 'payload_too_large');
      // Exactly at the limit the body is read and validated (the description is far over its own limit).
      const at = await t.request('POST', '/api/v2/assets', {
        rawBody: assetBodyOf(limits.bodyBytes),
        headers: { 'content-type': 'application/json' },
      });
      expectError(at, 400, 'validation');
      expect(await assetNames(t)).toEqual(before);
    });

    it('checks the key before reading a large body: 401 without one', async () => {
      const res = await t.request('POST', '/api/v2/assets', {
        key: null,
        rawBody: assetBodyOf(2 * limits.bodyBytes),
        headers: { 'content-type': 'application/json' },
      });
      expectError(res, 401, 'unauthorized');
    });

    // Fastify installs a text/plain parser by default; the hub removes it so such a body is refused, not parsed.
    it('answers 415 to a text/plain body on a JSON route', async () => {
      const res = await t.request('POST', '/api/v2/assets', {
        rawBody: 'name=plain',
        headers: { 'content-type': 'text/plain' },
      });
      expectError(res, 415, 'unsupported_media_type');
    });

    it('answers 415 unsupported_media_type to a body that is not JSON (XML, form)', async () => {
      for (const type of ['application/xml', 'application/x-www-form-urlencoded']) {
        const res = await t.request('POST', '/api/v2/assets', {
          rawBody: type === 'application/xml' ? '<asset name="x"/>' : 'name=x',
          headers: { 'content-type': type },
        });
        expectError(res, 415, 'unsupported_media_type');
      }
    });

    it('accepts application/json with a charset', async () => {
      const res = await t.request('POST', '/api/v2/assets', {
        rawBody: JSON.stringify({ name: 'with-charset' }),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(res.status, res.text).toBe(201);
    });

    it('answers 400 validation to invalid JSON', async () => {
      for (const rawBody of ['{"name": ', '{name: "x"}', "{'name':'x'}", '']) {
        const res = await t.request('POST', '/api/v2/assets', {
          rawBody,
          headers: { 'content-type': 'application/json' },
        });
        expectError(res, 400, 'validation');
      }
    });

    it('answers 400 naming an unknown body field', async () => {
      const res = await t.request('POST', '/api/v2/assets', { body: { name: 'x', colour: 'red' } });
      expectError(res, 400, 'validation');
      expect(res.json.message).toContain('colour');
      expect(res.json.details).toContainEqual({
        field: 'body.colour',
        problem: expect.any(String) as string,
      });
    });
  });

  describe('error responses', () => {
    const stackOrSql = [
      /\n\s+at\s/,
      /\bat\s+\S+\s+\(?[^)]*:\d+:\d+\)?/,
      /\.(ts|js|mjs|cjs):\d+/,
      /node_modules/,
      /\b(select|insert|update|delete)\b[\s\S]{0,80}\b(from|into|set|where)\b/i,
      /sqlite|SQLITE_|syntax error at or near|relation "|duplicate key value|violates/i,
    ];

    it('never contain a stack trace or SQL text', async () => {
      const probes: [string, string, { rawBody?: string; key?: null; headers?: Record<string, string> }][] = [
        ['POST', '/api/v2/assets', { rawBody: '{"name": ', headers: { 'content-type': 'application/json' } }],
        ['POST', '/api/v2/assets', { rawBody: '[]', headers: { 'content-type': 'application/json' } }],
        [
          'POST',
          '/api/v2/assets',
          { rawBody: '{"name": null}', headers: { 'content-type': 'application/json' } },
        ],
        [
          'POST',
          '/api/v2/assets',
          { rawBody: '{"name":"x","__proto__":{"a":1}}', headers: { 'content-type': 'application/json' } },
        ],
        ['GET', "/api/v2/assets/ast_'%3B%20DROP%20TABLE%20assets%3B--", {}],
        ['GET', `/api/v2/search?q=${'x'.repeat(300)}`, {}],
        ['GET', `/api/v2/assets/${'a'.repeat(250)}`, {}],
        ['GET', '/api/v2/assets?per_page=-1&page=abc', {}],
        ['GET', '/api/v2/audit/events?since=not-a-date', {}],
        [
          'PATCH',
          '/api/v2/keys/key_00000000000000000000000000',
          { rawBody: '{"scopes":["nope:*"]}', headers: { 'content-type': 'application/json' } },
        ],
        [
          'POST',
          '/api/v2/keys',
          {
            rawBody: '{"name":"x","role":"owner","scopes":["*"]}',
            headers: { 'content-type': 'application/json' },
          },
        ],
        [
          'POST',
          '/api/v2/groups',
          {
            rawBody: '{"name":"g","asset_ids":["ast_00000000000000000000000000"]}',
            headers: { 'content-type': 'application/json' },
          },
        ],
        ['DELETE', '/api/v2/groups/grp_00000000000000000000000000', {}],
        ['GET', '/api/v2/whoami', { key: null, headers: { authorization: `Bearer ${'x'.repeat(5000)}` } }],
        [
          'POST',
          '/api/v2/exec',
          { rawBody: '{"command":"id"}', headers: { 'content-type': 'application/json' } },
        ],
      ];
      const problems: string[] = [];
      for (const [method, url, o] of probes) {
        const res = await t.request(method, url, o);
        if (res.status < 400) problems.push(`${method} ${url}: not an error (${res.status})`);
        if (res.status >= 500 && res.status !== 501)
          problems.push(`${method} ${url}: ${res.status} ${res.text}`);
        for (const pattern of stackOrSql)
          if (pattern.test(res.text))
            problems.push(`${method} ${url} matches ${String(pattern)}: ${res.text}`);
        if (res.json.status !== res.status)
          problems.push(`${method} ${url}: no envelope: ${res.text.slice(0, 100)}`);
      }
      expect(problems).toEqual([]);
    });

    it('treats SQL-looking and LIKE-wildcard search text as data', async () => {
      await t.createAsset({ name: 'plain-asset' });
      for (const q of ["' OR 1=1 --", '%', '_', '%\\_[]', '"; DROP TABLE assets; --']) {
        const res = await t.request('GET', `/api/v2/search?q=${encodeURIComponent(q)}`);
        expect(res.status, q).toBe(200);
        expect(res.json.data, q).toEqual([]);
        for (const pattern of stackOrSql) expect(res.text, q).not.toMatch(pattern);
      }
    });

    // URLs Fastify rejects before routing (bad percent-encoding, a parameter over maxParamLength) go through
    // `frameworkErrors`, so they keep the envelope too.
    it('keeps the error envelope for URLs the router cannot decode', async () => {
      for (const url of ['/api/v2/assets/%E0%A4%A', `/api/v2/assets/${'a'.repeat(600)}`]) {
        const res = await t.request('GET', url);
        expect(res.status, url).toBeGreaterThanOrEqual(400);
        expect(res.json.status, url).toBe(res.status);
        expect(res.json.request_id, url).toMatch(/^req_/);
        expect(res.json).not.toHaveProperty('code');
      }
    });
  });
});

describe('behind a trusted proxy (SVC_TRUSTED_PROXIES=127.0.0.1)', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({ env: { SVC_TRUSTED_PROXIES: '127.0.0.1' } });
  });
  afterAll(async () => {
    await t.close();
  });
  const viaProxy = (proto: string | null, client = afar) => ({
    remoteAddress: '127.0.0.1',
    headers: { 'x-forwarded-for': client, ...(proto === null ? {} : { 'x-forwarded-proto': proto }) },
  });

  it('accepts a key the proxy received over HTTPS, and sees the client address it forwarded', async () => {
    const res = await t.request('POST', '/api/v2/assets', {
      body: { name: 'via-proxy' },
      ...viaProxy('https'),
    });
    expect(res.status, res.text).toBe(201);
    const id = (res.json.data as { id: string }).id;
    const audit = await t.request(
      'GET',
      `/api/v2/audit/events?action=asset.created&target_id=${id}`,
      viaProxy('https'),
    );
    expect(audit.status, audit.text).toBe(200);
    expect(audit.json.data).toEqual([expect.objectContaining({ target_id: id, ip: afar })]);
  });

  it('refuses a key the proxy received over plain HTTP, and does not process the request', async () => {
    const res = await t.request('POST', '/api/v2/assets', {
      body: { name: 'via-proxy-http' },
      ...viaProxy('http'),
    });
    expectError(res, 403, 'https_required');
    const list = await t.request('GET', '/api/v2/search?q=via-proxy-http', viaProxy('https'));
    expect(list.status).toBe(200);
    expect(list.json.data).toEqual([]);
  });

  it('refuses a key from the proxy when it does not say https', async () => {
    expectError(await t.request('GET', '/api/v2/whoami', viaProxy(null)), 403, 'https_required');
  });

  it('refuses X-Forwarded-Proto: https from an address that is not a trusted proxy', async () => {
    for (const remoteAddress of [elsewhere, afar]) {
      const res = await t.request('GET', '/api/v2/whoami', {
        remoteAddress,
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': afar },
      });
      expectError(res, 403, 'https_required');
    }
  });
});
