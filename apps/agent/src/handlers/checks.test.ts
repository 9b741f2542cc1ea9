/**
 * check.run as the hub sees its answers: probes of local listeners (up, a 500, the body text, a refused port,
 * a timeout, https with an untrusted certificate whose expiry is still read), the 64 KiB body bound, and the
 * targets the agent refuses before dialling anything.
 */
import { X509Certificate } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { AgentRequestPayload } from '@svc/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasOpenssl, makeTestPki } from '../testing/certificates.js';
import { runCheck } from './checks.js';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => {
      resolve();
    });
  });
}

const http = (target: string, more: Partial<AgentRequestPayload<'check.run'>> = {}) =>
  ({
    kind: 'http',
    target,
    timeout_ms: 2_000,
    tls_verify: true,
    expected_status: null,
    expected_body: null,
    ...more,
  }) satisfies AgentRequestPayload<'check.run'>;

const linux = { platform: 'linux' };

describe('check.run on the agent', () => {
  const servers: Server[] = [];
  let base = '';
  let closedPort = 0;

  beforeAll(async () => {
    const server = createHttpServer((req, res) => {
      if (req.url === '/slow') return; // never answers: the agent's timeout ends the probe
      if (req.url === '/fail') return void res.writeHead(500).end('broken');
      if (req.url === '/large') {
        // 1 MiB of filler, then the text: past the 64 KiB the agent reads, so it is not found.
        res.writeHead(200);
        const chunk = Buffer.alloc(16 * 1024, 'x');
        let largeSent = 0;
        const write = () => {
          while (largeSent < 1024 * 1024) {
            largeSent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', write);
          }
          res.end('needle');
        };
        write();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('status: all good');
    });
    servers.push(server);
    base = `http://127.0.0.1:${String(await listen(server))}`;
    const spare = createHttpServer();
    closedPort = await listen(spare);
    await close(spare);
  });

  afterAll(async () => {
    await Promise.all(servers.map(close));
  });

  it('answers up with the status and latency, and looks for the body text', async () => {
    const up = await runCheck(http(`${base}/`, { expected_body: 'all good' }), linux);
    expect(up).toMatchObject({ ok: true, status_code: 200, error: null, cert_expires_at: null });
    expect(up.latency_ms).toBeGreaterThanOrEqual(0);
    const missing = await runCheck(http(`${base}/`, { expected_body: 'all bad' }), linux);
    expect(missing).toMatchObject({ ok: false, error: 'the body does not contain the expected text' });
  });

  it('answers down for a 500 unless 500 is expected', async () => {
    expect(await runCheck(http(`${base}/fail`), linux)).toMatchObject({
      ok: false,
      status_code: 500,
      error: 'status 500, expected 2xx or 3xx',
    });
    expect(await runCheck(http(`${base}/fail`, { expected_status: [500] }), linux)).toMatchObject({
      ok: true,
    });
  });

  it('answers down for a refused port and a service that does not answer in time', async () => {
    const tcp = await runCheck(
      { ...http(''), kind: 'tcp', target: `127.0.0.1:${String(closedPort)}` },
      linux,
    );
    expect(tcp).toMatchObject({ ok: false });
    expect(tcp.error).toMatch(/ECONNREFUSED/);
    const open = await runCheck({ ...http(''), kind: 'tcp', target: base.replace('http://', '') }, linux);
    expect(open.ok).toBe(true);
    const started = performance.now();
    const slow = await runCheck(http(`${base}/slow`, { timeout_ms: 1_000 }), linux);
    expect(slow).toMatchObject({ ok: false, error: 'no answer within 1000 ms' });
    expect(performance.now() - started).toBeLessThan(1_900);
  });

  it('reads at most 64 KiB of a body: text past it is not found', async () => {
    const large = await runCheck(http(`${base}/large`, { expected_body: 'needle' }), linux);
    expect(large).toMatchObject({ ok: false, error: 'the body does not contain the expected text' });
    // The same text inside the first 64 KiB is found.
    expect(await runCheck(http(`${base}/`, { expected_body: 'status' }), linux)).toMatchObject({ ok: true });
  });

  it.skipIf(!hasOpenssl())(
    'reads an untrusted certificate’s expiry, and fails it while verifying',
    async () => {
      const pki = makeTestPki();
      const server = createHttpsServer({ cert: pki.serverCert, key: pki.serverKey }, (_req, res) => {
        res.writeHead(200).end('ok');
      });
      servers.push(server);
      const url = `https://127.0.0.1:${String(await listen(server))}/`;
      const notAfter = new Date(new X509Certificate(pki.serverCert).validTo).toISOString();
      const trusted = await runCheck(http(url), linux);
      expect(trusted.ok).toBe(false);
      expect(trusted.error).toMatch(/certificate/i);
      const unverified = await runCheck(http(url, { tls_verify: false }), linux);
      expect(unverified).toMatchObject({ ok: true, status_code: 200, cert_expires_at: notAfter });
    },
  );

  it('refuses targets that are not what their kind takes, before dialling anything', async () => {
    const refused: [AgentRequestPayload<'check.run'>, RegExp][] = [
      [http('file:///etc/passwd'), /scheme must be http or https/],
      [http('http://user:pw@127.0.0.1/'), /credentials/],
      [{ ...http(''), kind: 'ping', target: '-f 127.0.0.1' }, /not a name or an address/],
      [{ ...http(''), kind: 'tcp', target: '127.0.0.1' }, /host:port/],
      [{ ...http(''), kind: 'tcp', target: `127.0.0.1:1`, expected_body: 'x' }, /http checks only/],
    ];
    for (const [payload, message] of refused) {
      await expect(runCheck(payload, linux), payload.target).rejects.toMatchObject({
        code: 'invalid_argument',
        message: expect.stringMatching(message) as unknown,
      });
    }
    await expect(
      runCheck({ ...http(''), kind: 'ping', target: '127.0.0.1' }, { platform: 'windows' }),
    ).rejects.toMatchObject({ code: 'unsupported' });
  });

  it('says when ping is missing on this agent', async () => {
    const result = await runCheck(
      { ...http(''), kind: 'ping', target: '127.0.0.1' },
      { ...linux, pingBinary: '/nonexistent/ping' },
    );
    expect(result).toMatchObject({
      ok: false,
      error: 'ping is not installed on this agent; use a tcp check',
    });
  });
});
