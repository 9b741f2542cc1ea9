import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@svc/hub';
import { startTestHub, tlsRequest, type TestHub } from '@svc/testkit';
import { createCertificateAuthority, issueServerCertificate } from './certificates.js';

const dayMs = 86_400_000;

function plainRequest(port: number, pathname: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, path: pathname, method, headers, agent: false },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          });
        },
      );
      req.on('error', reject);
      req.end();
    },
  );
}

/** A hub in TLS auto mode on real loopback ports, and its HTTPS origin by name (as a browser reaches it). */
async function startLiveTlsHub(): Promise<{ t: TestHub; base: string }> {
  const t = await startTestHub({
    env: { SVC_TLS_MODE: 'auto' },
    listen: true,
    injectAsHttps: true,
    clock: new ManualClock(new Date()),
  });
  return { t, base: `https://localhost:${t.servers!.httpsPort!}` };
}

/** The SHA-256 fingerprint of the certificate the hub at `base` serves now. */
async function servedFingerprint(base: string): Promise<string> {
  return (await tlsRequest(`${base}/api/v1/tls/info`, { insecure: true })).peer.fingerprint256;
}

describe('TLS auto mode on real sockets', () => {
  let t: TestHub;
  let base: string;
  let ca: string;

  beforeAll(async () => {
    ({ t, base } = await startLiveTlsHub());
    // The CA is public: fetched without a key, then used to verify everything else.
    const caResponse = await tlsRequest(`${base}/api/v1/tls/ca.crt`, { insecure: true });
    expect(caResponse.status).toBe(200);
    ca = caResponse.body;
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves a P-256 chain that verifies against the downloadable CA', async () => {
    const res = await tlsRequest(`${base}/api/v2/whoami`, {
      ca,
      headers: { authorization: `Bearer ${t.ownerKey}` },
    });
    expect(res.status).toBe(200);
    const caCert = new X509Certificate(ca);
    expect(caCert.ca).toBe(true);
    expect(caCert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const caYears = (new Date(caCert.validTo).getTime() - new Date(caCert.validFrom).getTime()) / dayMs / 365;
    expect(caYears).toBeGreaterThan(9.9);
    const leaf = new X509Certificate(res.peer.raw);
    expect(leaf.ca).toBe(false);
    expect(leaf.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(leaf.checkIssued(caCert)).toBe(true);
    const leafDays = (new Date(leaf.validTo).getTime() - new Date(leaf.validFrom).getTime()) / dayMs;
    expect(Math.round(leafDays)).toBe(365);
    expect(leaf.subjectAltName).toContain('DNS:localhost');
    expect(leaf.subjectAltName).toContain('IP Address:127.0.0.1');
  });

  it("names the certificate's DNS names in /tls/info, the names a browser can open the hub by", async () => {
    const res = await tlsRequest(`${base}/api/v1/tls/info`, { ca });
    const info = (JSON.parse(res.body) as { data: { dns_names: string[] } }).data;
    const leafNames = new X509Certificate(res.peer.raw).subjectAltName
      ?.split(', ')
      .filter((name) => name.startsWith('DNS:'))
      .map((name) => name.slice(4));
    expect(info.dns_names).toContain('localhost');
    expect(info.dns_names).not.toContain('127.0.0.1');
    expect(info.dns_names.sort()).toEqual(leafNames?.sort());
  });

  it('keeps the CA private key apart from the public CA file and the data directory, sealed', () => {
    const publicFiles = fs.readdirSync(path.join(t.dataDir, 'tls'));
    expect(publicFiles.sort()).toEqual(['ca.crt', 'server.crt']);
    const privateDir = path.join(t.dataDir, 'tls-private');
    expect(fs.statSync(privateDir).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(privateDir).sort()).toEqual(['server.key.sealed', 'ticket-keys.sealed']);
    const caKeyDir = t.config.tlsCaKeyDir;
    expect(caKeyDir).toBe(`${t.dataDir}-ca-key`);
    expect(fs.statSync(caKeyDir).mode & 0o777).toBe(0o700);
    const sealed = fs.readFileSync(path.join(caKeyDir, 'ca.key.sealed'), 'utf8');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('PRIVATE KEY');
    expect(fs.statSync(path.join(caKeyDir, 'ca.key.sealed')).mode & 0o777).toBe(0o600);
  });

  it('sends the security headers on every HTTPS response, errors included', async () => {
    for (const [url, headers] of [
      [`${base}/api/v2/whoami`, { authorization: `Bearer ${t.ownerKey}` }],
      [`${base}/api/v2/whoami`, {}],
      [`${base}/api/v2/nope`, { authorization: `Bearer ${t.ownerKey}` }],
      [`${base}/api/v1/tls/info`, {}],
    ] as const) {
      const res = await tlsRequest(url, { ca, headers });
      expect(res.headers['strict-transport-security'], url).toBe('max-age=63072000');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });

  it('refuses TLS 1.1 and weak TLS 1.2 ciphers, accepts TLS 1.2 AEAD and TLS 1.3', async () => {
    await expect(
      tlsRequest(`${base}/api/v1/tls/info`, { ca, maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }),
    ).rejects.toThrow();
    await expect(
      tlsRequest(`${base}/api/v1/tls/info`, {
        ca,
        maxVersion: 'TLSv1.2',
        ciphers: 'ECDHE-ECDSA-AES128-SHA:AES128-SHA:AES256-SHA256',
      }),
    ).rejects.toThrow();
    const tls12 = await tlsRequest(`${base}/api/v1/tls/info`, {
      ca,
      maxVersion: 'TLSv1.2',
      ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256',
    });
    expect(tls12.protocol).toBe('TLSv1.2');
    const tls13 = await tlsRequest(`${base}/api/v1/tls/info`, { ca });
    expect(tls13.protocol).toBe('TLSv1.3');
  });

  it('refuses a client that offers only finite-field groups, accepts X25519, P-256 and P-384', async () => {
    // An ffdhe8192 handshake costs the hub ~130 ms of CPU: no unauthenticated client may make it pay that.
    for (const ecdhCurve of ['ffdhe2048', 'ffdhe8192', 'ffdhe2048:ffdhe3072:ffdhe4096:ffdhe6144:ffdhe8192']) {
      for (const maxVersion of ['TLSv1.3', 'TLSv1.2'] as const) {
        await expect(
          tlsRequest(`${base}/api/v1/tls/info`, { ca, ecdhCurve, maxVersion }),
          `${ecdhCurve} ${maxVersion}`,
        ).rejects.toThrow(/handshake failure|no shared|SSL/i);
      }
    }
    for (const [ecdhCurve, group] of [
      ['X25519', 'X25519'],
      ['P-256', 'prime256v1'],
      ['P-384', 'secp384r1'],
    ] as const) {
      const res = await tlsRequest(`${base}/api/v1/tls/info`, { ca, ecdhCurve });
      expect(res.status).toBe(200);
      expect(res.protocol).toBe('TLSv1.3');
      expect(res.group).toBe(group);
    }
    // A client that prefers ffdhe but also offers X25519 still gets X25519.
    const mixed = await tlsRequest(`${base}/api/v1/tls/info`, { ca, ecdhCurve: 'ffdhe8192:X25519' });
    expect(mixed.group).toBe('X25519');
  });

  it('redirects browsers from HTTP to HTTPS but never redirects a request that carries a key', async () => {
    const httpPort = t.servers!.httpPort;
    const browser = await plainRequest(httpPort, '/api/v1/tls/info?x=1', { host: `localhost:${httpPort}` });
    expect(browser.status).toBe(308);
    expect(browser.headers.location).toBe(`https://localhost:${t.servers!.httpsPort!}/api/v1/tls/info?x=1`);
    const withKey = await plainRequest(httpPort, '/api/v2/assets', { authorization: `Bearer ${t.ownerKey}` });
    expect(withKey.status).toBe(403);
    expect(withKey.headers.location).toBeUndefined();
    expect(JSON.parse(withKey.body)).toMatchObject({ error: 'https_required', status: 403 });
    const withCookie = await plainRequest(httpPort, '/api/auth/me', { cookie: 'svc_session=abc' });
    expect(withCookie.status).toBe(403);
    const post = await plainRequest(httpPort, '/api/v2/assets', {}, 'POST');
    expect(post.status).toBe(403);
  });

  it('answers /api/v1/tls/info and /api/v2/hub/tls with the served certificate', async () => {
    const info = await tlsRequest(`${base}/api/v1/tls/info`, { ca });
    expect(info.status, info.body).toBe(200);
    const data = (
      JSON.parse(info.body) as {
        data: { fingerprint_sha256: string; mode: string; source: string; expires_at: string };
      }
    ).data;
    expect(data.mode).toBe('auto');
    expect(data.source).toBe('builtin');
    expect(data.fingerprint_sha256).toBe(new X509Certificate(info.peer.raw).fingerprint256);
    const status = await t.request('GET', '/api/v2/hub/tls');
    expect(status.json.data).toMatchObject({ source: 'builtin', ca_download: true });
  });
});

describe('TLS renewal, uploads and clearing, live', () => {
  let t: TestHub;
  let base: string;

  beforeAll(async () => {
    ({ t, base } = await startLiveTlsHub());
  });
  afterAll(async () => {
    await t.close();
  });

  it('applies an uploaded chain live, keeps its key sealed, and clears back to the built-in one', async () => {
    const now = new Date();
    const otherCa = await createCertificateAuthority(now, 'Uploaded Test CA');
    const leaf = await issueServerCertificate(otherCa, ['localhost', '127.0.0.1'], now);
    const admin = await t.createKey({ role: 'admin', scopes: ['*'] });

    const upload = await t.request('POST', '/api/settings/tls', {
      key: admin.raw_key,
      body: { certificate: leaf.certPem, private_key: leaf.keyPem },
    });
    expect(upload.status).toBe(200);
    expect(upload.json.data).toMatchObject({ source: 'uploaded', ca_download: false });

    const served = await tlsRequest(`${base}/api/v1/tls/info`, { ca: otherCa.certPem });
    expect(served.peer.fingerprint256).toBe(new X509Certificate(leaf.certPem).fingerprint256);
    expect((await t.request('GET', '/api/v1/tls/ca.crt', { key: null })).status).toBe(404);

    const stored = await t.hub.database.db.selectFrom('settings').selectAll().execute();
    const text = JSON.stringify(stored);
    expect(text).toContain('BEGIN CERTIFICATE');
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain(leaf.keyPem.split('\n')[1]);

    const cleared = await t.request('DELETE', '/api/settings/tls', { key: admin.raw_key });
    expect(cleared.status).toBe(200);
    expect(cleared.json.data).toMatchObject({ source: 'builtin', ca_download: true });
    const caPem = (await t.request('GET', '/api/v1/tls/ca.crt', { key: null })).text;
    await expect(tlsRequest(`${base}/api/v1/tls/info`, { ca: caPem })).resolves.toMatchObject({
      status: 200,
    });

    const audit = await t.request('GET', '/api/v2/audit/events?per_page=500');
    const actions = (audit.json.data as { action: string }[]).map((e) => e.action);
    expect(actions).toContain('tls.override_uploaded');
    expect(actions).toContain('tls.override_cleared');
  });

  it('refuses a mismatched key, garbage and an expired certificate with a clear error, changing nothing', async () => {
    const now = new Date();
    const ca = await createCertificateAuthority(now);
    const a = await issueServerCertificate(ca, ['localhost'], now);
    const b = await issueServerCertificate(ca, ['localhost'], now);
    const old = await issueServerCertificate(ca, ['localhost'], new Date(now.getTime() - 400 * dayMs));
    const before = await servedFingerprint(base);
    const cases: [Record<string, string>, string][] = [
      [{ certificate: a.certPem, private_key: b.keyPem }, 'body.private_key'],
      [{ certificate: 'not a pem', private_key: a.keyPem }, 'body.certificate'],
      [
        {
          certificate: a.certPem,
          private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----',
        },
        'body.private_key',
      ],
      [{ certificate: old.certPem, private_key: old.keyPem }, 'body.certificate'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('POST', '/api/settings/tls', { body });
      expect(res.status, field).toBe(400);
      expect(res.json.error).toBe('validation');
      expect(JSON.stringify(res.json.details)).toContain(field);
    }
    expect(await servedFingerprint(base)).toBe(before);
    expect(t.hub.tls.status().source).toBe('builtin');
  });

  it('lets only admins upload or clear', async () => {
    const operator = await t.createKey({ role: 'operator', scopes: ['*'] });
    const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });
    expect(
      (
        await t.request('POST', '/api/settings/tls', {
          key: operator.raw_key,
          body: { certificate: 'x', private_key: 'y' },
        })
      ).json.error,
    ).toBe('admin_required');
    expect((await t.request('DELETE', '/api/settings/tls', { key: viewer.raw_key })).json.error).toBe(
      'read_only_role',
    );
    expect((await t.request('GET', '/api/settings/tls', { key: viewer.raw_key })).status).toBe(200);
  });
});

describe('TLS renewal', () => {
  it('renews the server certificate 30 days before expiry, without a restart', async () => {
    const { t, base } = await startLiveTlsHub();
    const before = await servedFingerprint(base);
    expect(await t.hub.tls.renewIfDue()).toBe(false);
    t.clock.advance(334 * dayMs);
    expect(await t.hub.tls.renewIfDue()).toBe(false);
    t.clock.advance(2 * dayMs);
    expect(await t.hub.tls.renewIfDue()).toBe(true);
    const after = await servedFingerprint(base);
    expect(after).not.toBe(before);
    const status = t.hub.tls.status();
    expect(new Date(status.certificate!.not_after).getTime()).toBeGreaterThan(
      t.clock.now().getTime() + 360 * dayMs,
    );
    expect(await t.hub.tls.renewIfDue()).toBe(false);
    await t.close();
  });
});

/**
 * One TLS connection to the hub: whether it resumed `session`, and the session it ends with (a new ticket
 * after a full handshake; TLS 1.3 tickets arrive just after it).
 */
function tlsSession(
  port: number,
  ca: string,
  session?: Buffer,
): Promise<{ resumed: boolean; ticket: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port,
      ca,
      servername: 'localhost',
      ...(session ? { session } : {}),
    });
    socket.once('secureConnect', () => {
      setTimeout(() => {
        const ticket = socket.getSession();
        socket.end();
        if (ticket) resolve({ resumed: socket.isSessionReused(), ticket });
        else reject(new Error('no TLS session'));
      }, 200);
    });
    socket.once('error', reject);
  });
}

describe('TLS session resumption (decision 0072)', () => {
  it('resumes after a restart a session issued before it, until the day-old ticket keys are replaced', async () => {
    const { t } = await startLiveTlsHub();
    const ca = t.hub.tls.caCertificate()!;
    const first = await tlsSession(t.servers!.httpsPort!, ca);
    expect(first.resumed).toBe(false);

    const again = await t.restart();
    try {
      const port = again.servers!.httpsPort!;
      const resumed = await tlsSession(port, ca, first.ticket);
      expect(resumed.resumed).toBe(true);

      again.clock.advance(dayMs - 60_000);
      expect(again.hub.tls.rotateTicketKeysIfDue()).toBe(false);
      again.clock.advance(60_000);
      expect(again.hub.tls.rotateTicketKeysIfDue()).toBe(true);
      expect((await tlsSession(port, ca, resumed.ticket)).resumed).toBe(false);
    } finally {
      await again.close();
    }
  });

  it('keeps the ticket keys sealed in a 0600 file that no answer of the hub reveals', async () => {
    const { t, base } = await startLiveTlsHub();
    try {
      const file = path.join(t.dataDir, 'tls-private', 'ticket-keys.sealed');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const sealed = fs.readFileSync(file, 'utf8').trim();
      expect(sealed).toMatch(/^v1\./);
      const { keys } = JSON.parse(t.hub.box.open(sealed, 'tls:ticket-keys')) as { keys: string };
      expect(Buffer.from(keys, 'base64')).toHaveLength(48);
      for (const url of ['/api/v1/tls/info', '/api/v1/tls/ca.crt']) {
        const answer = await tlsRequest(`${base}${url}`, { insecure: true });
        expect(answer.body).not.toContain(keys);
      }
      const status = await t.request('GET', '/api/v2/hub/tls');
      expect(status.status).toBe(200);
      expect(status.text).not.toContain(keys);
      expect(status.text).not.toMatch(/ticket/i);
    } finally {
      await t.close();
    }
  });
});

describe('TLS across restarts and modes', () => {
  it('keeps an uploaded certificate over a restart, ahead of the startup source', async () => {
    const now = new Date();
    const t = await startTestHub({
      env: { SVC_TLS_MODE: 'auto' },
      injectAsHttps: true,
      clock: new ManualClock(now),
    });
    const ca = await createCertificateAuthority(now);
    const leaf = await issueServerCertificate(ca, ['localhost'], now);
    expect(
      (
        await t.request('POST', '/api/settings/tls', {
          body: { certificate: leaf.certPem, private_key: leaf.keyPem },
        })
      ).status,
    ).toBe(200);
    const dataDir = t.dataDir;
    await t.hub.close();
    const again = await startTestHub({
      env: { SVC_TLS_MODE: 'auto', SVC_DATA_DIR: dataDir },
      injectAsHttps: true,
      clock: new ManualClock(now),
    });
    expect(again.hub.tls.status().source).toBe('uploaded');
    await again.close();
  });

  it('serves external certificate files, and says what is wrong when they are missing', async () => {
    const now = new Date();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ext-'));
    const ca = await createCertificateAuthority(now);
    const leaf = await issueServerCertificate(ca, ['localhost'], now);
    fs.writeFileSync(path.join(dir, 'cert.pem'), leaf.certPem);
    fs.writeFileSync(path.join(dir, 'key.pem'), leaf.keyPem);
    const t = await startTestHub({
      env: {
        SVC_TLS_MODE: 'external',
        SVC_TLS_CERT: path.join(dir, 'cert.pem'),
        SVC_TLS_KEY: path.join(dir, 'key.pem'),
      },
      listen: true,
      clock: new ManualClock(now),
    });
    const res = await tlsRequest(`https://localhost:${t.servers!.httpsPort!}/api/v1/tls/info`, {
      ca: ca.certPem,
    });
    expect(JSON.parse(res.body)).toMatchObject({
      data: { mode: 'external', source: 'external', ca_fingerprint_sha256: null },
    });
    expect((await t.request('GET', '/api/v1/tls/ca.crt', { key: null })).status).toBe(404);
    await t.close();
    await expect(
      startTestHub({
        env: {
          SVC_TLS_MODE: 'external',
          SVC_TLS_CERT: path.join(dir, 'missing.pem'),
          SVC_TLS_KEY: path.join(dir, 'key.pem'),
        },
      }),
    ).rejects.toThrow(/SVC_TLS_CERT/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses uploads with a clear conflict when TLS is disabled', async () => {
    const now = new Date();
    const t = await startTestHub();
    const ca = await createCertificateAuthority(now);
    const leaf = await issueServerCertificate(ca, ['localhost'], now);
    const res = await t.request('POST', '/api/settings/tls', {
      body: { certificate: leaf.certPem, private_key: leaf.keyPem },
    });
    expect(res.status).toBe(409);
    expect(res.json.message).toMatch(/SVC_TLS_MODE/);
    expect((await t.request('GET', '/api/v2/hub/tls')).json.data).toMatchObject({
      mode: 'disabled',
      source: 'disabled',
      certificate: null,
    });
    await t.close();
  });
});

// sslscan comes from Debian; .ci/run installs it, so CI always runs this scan.
const sslscan = ['/usr/bin/sslscan', '/usr/local/bin/sslscan'].find((p) => fs.existsSync(p));

describe.skipIf(!sslscan)('TLS scanner (sslscan)', () => {
  it('finds no protocol below TLS 1.2 and no cipher without forward secrecy and AEAD', async () => {
    const t = await startTestHub({
      env: { SVC_TLS_MODE: 'auto' },
      listen: true,
      clock: new ManualClock(new Date()),
    });
    try {
      const { execFile } = await import('node:child_process');
      const output = await new Promise<string>((resolve, reject) => {
        execFile(
          sslscan!,
          ['--no-colour', `127.0.0.1:${t.servers!.httpsPort!}`],
          { timeout: 60_000 },
          (error, stdout) => {
            if (error) reject(new Error(`sslscan failed: ${error.message}`));
            else resolve(stdout);
          },
        );
      });
      for (const protocol of ['SSLv2', 'SSLv3', 'TLSv1.0', 'TLSv1.1']) {
        expect(output).toMatch(new RegExp(`^${protocol.replace('.', '\\.')}\\s+disabled`, 'm'));
      }
      expect(output).toMatch(/^TLSv1\.2\s+enabled/m);
      const ciphers = output.split('\n').filter((line) => /^(Preferred|Accepted)\s/.test(line));
      expect(ciphers.length).toBeGreaterThan(2);
      for (const line of ciphers) {
        expect(line, line).toMatch(/(TLS_AES_|TLS_CHACHA20|ECDHE-[A-Z]+-(AES\d+-GCM|CHACHA20-POLY1305))/);
      }
      expect(output).toContain('ECC Curve Name:      prime256v1');
      // Key exchange: elliptic curves only, never a finite-field group (D(HE)at).
      expect(output).not.toMatch(/ffdhe\d+/i);
    } finally {
      await t.close();
    }
  }, 90_000);
});
