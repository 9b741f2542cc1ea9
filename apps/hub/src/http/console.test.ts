/**
 * The web console served by the hub (http/console.ts), on a tiny fixture build rather than the real one: the
 * files, the fallback to index.html for the console's own paths, the cache and security headers, traversal
 * refused, the API's answers unchanged, and a hub without a build.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestHub } from '@svc/testkit/vitest';
import { consoleContentSecurityPolicy, createConsoleHandler, defaultConsoleDir } from './console.js';

const indexHtml =
  '<!doctype html><html><head><title>svc</title><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';
const appJs = 'console.log("the console");'.repeat(20);

/** A build as Vite leaves it, and a secret beside it that no path may reach. */
function makeFixture(): { root: string; dist: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-console-'));
  const dist = path.join(root, 'dist');
  fs.mkdirSync(path.join(dist, 'assets'), { recursive: true });
  fs.mkdirSync(path.join(dist, '.hidden'));
  fs.writeFileSync(path.join(dist, 'index.html'), indexHtml);
  fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), appJs);
  fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js.gz'), gzipSync(appJs));
  fs.writeFileSync(path.join(dist, 'assets', 'style-def456.css'), 'body{color:black}');
  fs.writeFileSync(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  fs.writeFileSync(path.join(dist, '.hidden', 'file.txt'), 'DOT-FOLDER-CONTENT');
  fs.writeFileSync(path.join(root, 'secret.txt'), 'TOP-SECRET');
  return { root, dist };
}

/** One request written on a socket as it is: no client resolves its dot segments first. */
function rawGet(port: number, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.end(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    let answer = '';
    socket.setEncoding('utf8');
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer')));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => {
      resolve(answer);
    });
    socket.on('error', reject);
  });
}

const fixture = makeFixture();
afterAll(() => {
  fs.rmSync(fixture.root, { recursive: true, force: true });
});

describe('the console served by the hub', () => {
  // Listening too: the traversal paths go over a socket as sent (inject() would normalize them first).
  const hub = useTestHub({ consoleDir: fixture.dist, listen: true });
  const get = (url: string, headers: Record<string, string> = {}) =>
    hub().request('GET', url, { key: null, headers });

  it('serves index.html at / with the CSP, the API security headers and no-cache', async () => {
    const res = await get('/');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<div id="root"></div>');
    expect(res.text).toContain('<meta name="svc-oidc" content="disabled">');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toBe(consoleContentSecurityPolicy);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('has a CSP without inline script, inline style or framing', () => {
    const directives = new Map(
      consoleContentSecurityPolicy.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]),
    );
    expect(directives.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(consoleContentSecurityPolicy.replace("'wasm-unsafe-eval'", '')).not.toContain('unsafe');
  });

  it.each([
    '/dashboard',
    '/assets',
    '/assets/ast_01jd7k2m3n4p5q6r7s8t9v0wxy',
    '/admin/keys?page=2',
    '/index.html',
  ])('answers the console path %s with index.html', async (url) => {
    const res = await get(url);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<div id="root"></div>');
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('serves hashed files under /assets/ for a year, with their type', async () => {
    const js = await get('/assets/index-abc123.js');
    const css = await get('/assets/style-def456.css');

    expect(js.status).toBe(200);
    expect(js.text).toBe(appJs);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['content-security-policy']).toBe(consoleContentSecurityPolicy);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('sends the gzip twin to a browser that takes gzip, and a 304 for a known ETag', async () => {
    const zipped = await hub().hub.app.inject({
      method: 'GET',
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'gzip, deflate' },
    });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(zipped.rawPayload).toEqual(gzipSync(appJs));

    const etag = String((await get('/assets/index-abc123.js')).headers.etag);
    const again = await get('/assets/index-abc123.js', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('answers 404 for a missing file (an old chunk), not the page', async () => {
    const res = await get('/assets/index-old999.js');
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: 'not_found', status: 404 });
  });

  it.each([
    '/../secret.txt',
    '/%2e%2e/secret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/%2E%2E%2Fsecret.txt',
    '/assets%5c..%5c..%5csecret.txt',
    '/index.html%00.js',
    '/%00',
    '/%zz',
  ])('refuses the path %s, sent as it is on a socket, before looking at files', async (url) => {
    const res = await rawGet(hub().servers?.httpPort ?? 0, url);
    expect(res).toMatch(/^HTTP\/1\.1 400 /);
    expect(res).toContain('"error":"validation"');
    expect(res).not.toContain('TOP-SECRET');
  });

  it('never serves a file of a dot-folder', async () => {
    const res = await get('/.hidden/file.txt');
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('DOT-FOLDER-CONTENT');
  });

  it('leaves /api to the API: unknown paths keep the 404 envelope, v2 asks for a credential', async () => {
    const consolePath = await get('/api/nothing-here');
    const bare = await get('/api');
    const v2 = await get('/api/v2/nothing-here');

    expect(consolePath.status).toBe(404);
    expect(consolePath.json).toMatchObject({ error: 'not_found', status: 404 });
    expect(consolePath.headers['content-security-policy']).toBeUndefined();
    expect(bare.status).toBe(404);
    expect(v2.status).toBe(401);
    expect(v2.json).toMatchObject({ error: 'unauthorized' });
  });

  it('does not answer other methods with the console', async () => {
    const res = await hub().request('POST', '/dashboard', { key: null, body: {} });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: 'not_found' });
  });

  it('keeps the routes outside /api that the API has', async () => {
    const res = await hub().request('GET', '/status/aggregate');
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ scope: 'all' });
  });
});

describe('a hub without a console build', () => {
  const empty = path.join(fixture.root, 'not-built');
  const hub = useTestHub({ consoleDir: empty });

  it('starts, and / says with 503 how to build the console', async () => {
    const json = await hub().request('GET', '/', { key: null });
    const html = await hub().request('GET', '/dashboard', {
      key: null,
      headers: { accept: 'text/html,application/xhtml+xml' },
    });

    expect(json.status).toBe(503);
    expect(json.json).toMatchObject({ error: 'unavailable', status: 503 });
    expect(String(json.json.message)).toContain('npm run build');
    expect(html.status).toBe(503);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.text).toContain('npm run build');
    expect(html.headers['content-security-policy']).toBe(consoleContentSecurityPolicy);
  });

  it('still serves the API', async () => {
    const res = await hub().request('GET', '/api/v2/whoami');
    expect(res.status).toBe(200);
  });
});

describe('console options', () => {
  it('tells the sign-in page that OIDC is configured', async () => {
    const app = Fastify();
    app.setNotFoundHandler(createConsoleHandler({ dir: fixture.dist, oidc: true }));
    const res = await app.inject({ method: 'GET', url: '/' });
    expect(res.body).toContain('<meta name="svc-oidc" content="enabled">');
    await app.close();
  });

  it('finds apps/web/dist beside the hub package from its sources', () => {
    expect(defaultConsoleDir()).toBe(path.resolve(import.meta.dirname, '../../../web/dist'));
  });
});
