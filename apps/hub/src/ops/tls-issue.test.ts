/**
 * `svc-hub tls issue`: a certificate for a load balancer from the built-in CA (decision 0041), as an operator
 * runs it with the hub's environment.
 */
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env.js';
import { systemClock } from '../platform/clock.js';
import { silentLogger } from '../platform/logger.js';
import { loadSecretBox } from '../platform/secret-box.js';
import { TlsManager } from '../platform/tls/tls-manager.js';
import { runHubCli } from './program.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const hubKey = 'ab'.repeat(32);

/** A data directory whose hub (auto TLS, this key) has made its built-in CA. */
async function hubWithCa(): Promise<{ dataDir: string; caKeyDir: string; caPem: string }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-tls-issue-'));
  dirs.push(root);
  const dataDir = path.join(root, 'data');
  const caKeyDir = path.join(root, 'ca-key');
  const tls = new TlsManager({
    mode: 'auto',
    dataDir,
    caKeyDir,
    hostnames: [],
    externalCertFile: null,
    externalKeyFile: null,
    box: loadSecretBox({ dataDir, key: hubKey, retired: [] }),
    clock: systemClock,
    logger: silentLogger,
    loadOverride: () => Promise.resolve(null),
  });
  await tls.init();
  return { dataDir, caKeyDir, caPem: tls.caCertificate() ?? '' };
}

async function cli(argv: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const code = await runHubCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    config: () => parseEnv(env, os.tmpdir()),
    serve: () => Promise.reject(new Error('not in this test')),
  });
  return { code, stdout, stderr };
}

describe('svc-hub tls issue', () => {
  it('writes a certificate from the built-in CA for the names asked, then its key, readable by its owner only', async () => {
    const hub = await hubWithCa();
    const file = path.join(hub.dataDir, '..', 'lb.pem');
    const env = { SVC_DATA_DIR: hub.dataDir, SVC_TLS_CA_KEY_DIR: hub.caKeyDir, SVC_ENCRYPTION_KEY: hubKey };
    const out = await cli(['tls', 'issue', file, '--name', 'localhost', '--name', '127.0.0.1'], env);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toContain('valid until');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const pem = fs.readFileSync(file, 'utf8');
    expect(pem).toMatch(/-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----/);
    const cert = new X509Certificate(pem);
    const ca = new X509Certificate(hub.caPem);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
  });

  it('refuses without the hub key that sealed the CA key, names outside the CA, and an existing file', async () => {
    const hub = await hubWithCa();
    const env = { SVC_DATA_DIR: hub.dataDir, SVC_TLS_CA_KEY_DIR: hub.caKeyDir, SVC_ENCRYPTION_KEY: hubKey };
    const file = path.join(hub.dataDir, '..', 'lb.pem');

    const outside = await cli(['tls', 'issue', file, '--name', 'hub.example.com'], env);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('hub.example.com');
    expect(fs.existsSync(file)).toBe(false);

    const noKey = await cli(['tls', 'issue', file, '--name', 'localhost'], {
      ...env,
      SVC_ENCRYPTION_KEY: '',
    });
    expect(noKey.code).toBe(2);
    expect(fs.existsSync(file)).toBe(false);

    const otherKey = await cli(['tls', 'issue', file, '--name', 'localhost'], {
      ...env,
      SVC_ENCRYPTION_KEY: 'cd'.repeat(32),
    });
    expect(otherKey.code).toBe(2);
    expect(otherKey.stderr).toContain('encryption key');
    expect(fs.existsSync(file)).toBe(false);

    fs.writeFileSync(file, 'keep me');
    const exists = await cli(['tls', 'issue', file, '--name', 'localhost'], env);
    expect(exists.code).toBe(2);
    expect(fs.readFileSync(file, 'utf8')).toBe('keep me');
  });
});
