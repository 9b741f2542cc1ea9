/**
 * End to end: the hub as users start it (`node --import tsx apps/hub/src/main.ts`), looked at from outside.
 * Its files on disk are private (process umask 0077, data directory 0700, files 0600, the CA key in its own
 * directory), and its start-up log gives the CA fingerprint that /api/v1/tls/info and the CA itself show.
 * Its HTTPS server keeps idle connections open longer than a load balancer does.
 */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fetchHubTrust,
  freePort,
  killChildren,
  startHubProcess,
  waitFor,
  waitForHub,
  type Child,
  type HubTrust,
} from './support.js';

let work: string;
let dataDir: string;
let hub: Child;
let trust: HubTrust;
let httpsPort: number;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-start-'));
  dataDir = path.join(work, 'data');
  httpsPort = await freePort();
  hub = startHubProcess({
    dataDir,
    httpPort: await freePort(),
    httpsPort,
    env: { SVC_LOG_LEVEL: 'info' },
  });
  const baseUrl = `https://127.0.0.1:${String(httpsPort)}`;
  await waitForHub(baseUrl, hub);
  trust = await fetchHubTrust(baseUrl);
  await waitFor('the start-up log', () => (hub.output().includes('enroll an agent') ? true : undefined));
}, 60_000);

afterAll(async () => {
  await hub.stop();
  await killChildren();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('a started hub', () => {
  it('runs with umask 0077', () => {
    const status = fs.readFileSync(`/proc/${String(hub.pid)}/status`, 'utf8');
    expect(/^Umask:\s+(\d+)/m.exec(status)?.[1]).toBe('0077');
  });

  it('leaves nothing in its data directory or CA key directory that another local user can read', () => {
    const caKeyDir = `${dataDir}-ca-key`;
    expect(fs.readdirSync(caKeyDir)).toEqual(['ca.key.sealed']);
    for (const root of [dataDir, caKeyDir]) {
      expect(fs.statSync(root).mode & 0o777, root).toBe(0o700);
      for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
        const full = path.join(entry.parentPath, entry.name);
        if (path.relative(dataDir, full).startsWith('tls' + path.sep) || full === path.join(dataDir, 'tls'))
          continue; // the public CA certificate, shareable by design
        expect((fs.statSync(full).mode & 0o777).toString(8), full).toBe(entry.isDirectory() ? '700' : '600');
      }
    }
  });

  it("logs the CA's fingerprint, the one /api/v1/tls/info and the CA certificate show, and the enroll command", () => {
    const log = hub.output();
    expect(trust.caFingerprint).toBe(new X509Certificate(trust.caPem).fingerprint256);
    expect(log).toContain(`CA fingerprint (SHA-256): ${trust.caFingerprint}`);
    expect(log).toContain(
      `svc-agent enroll --hub https://127.0.0.1:${String(httpsPort)} --token <make one: POST /api/v2/enrollment-tokens> --ca-fingerprint ${trust.caFingerprint}`,
    );
    const served = new X509Certificate(fs.readFileSync(path.join(dataDir, 'tls', 'server.crt')))
      .fingerprint256;
    expect(log).not.toContain(served);
  });

  it('keeps an idle connection open longer than a load balancer does (72 s, above HAProxy 65 s)', async () => {
    const res = await new Promise<{ keepAlive: string | undefined }>((resolve, reject) => {
      const req = https.request(
        new URL('/api/v1/tls/info', `https://127.0.0.1:${String(httpsPort)}`),
        { ca: trust.caPem, servername: 'localhost', headers: { connection: 'keep-alive' }, agent: false },
        (r) => {
          r.resume();
          resolve({ keepAlive: String(r.headers['keep-alive']) });
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(res.keepAlive).toBe('timeout=72');
  });
});
