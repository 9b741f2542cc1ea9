import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hasOpenssl, makeTestPki, type TestPki } from '../testing/certificates.js';
import { startFakeEnrollHub, type FakeEnrollHub } from '../testing/fake-enroll-hub.js';
import { checkCaCertificate, enroll, normalizeFingerprint } from './enroll.js';

const token = `sve_${'a'.repeat(52)}`;
const credential = `sva_${'c'.repeat(52)}`;
const answer = (caPem: string | null) => ({
  request_id: 'req_1',
  data: {
    asset_id: 'ast_0123',
    credential,
    ca_pem: caPem,
    ca_fingerprint_sha256: caPem ? new X509Certificate(caPem).fingerprint256 : null,
    channel_path: '/api/v1/agent/channel',
  },
});

describe.skipIf(!hasOpenssl())('enroll (trust on first use)', () => {
  let pki: TestPki;
  let otherPki: TestPki;
  let dir: string;
  let configPath: string;
  let hub: FakeEnrollHub | undefined;

  beforeAll(() => {
    pki = makeTestPki();
    otherPki = makeTestPki();
  });
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'svc-agent-enroll-'));
    configPath = path.join(dir, 'settings.json');
  });
  afterEach(async () => {
    await hub?.close();
    hub = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  const base = () => ({
    token,
    hostname: 'box',
    platform: 'linux' as const,
    configPath,
    insecureLoopback: true,
  });
  const nothingSaved = async () => expect(stat(configPath)).rejects.toMatchObject({ code: 'ENOENT' });

  it('checks IsCA and the pin itself', () => {
    expect(checkCaCertificate(pki.caCert, null).ca).toBe(true);
    expect(() => checkCaCertificate(pki.leafOnlyCert, null)).toThrow(/not a CA/);
    expect(() => checkCaCertificate('not a pem', null)).toThrow(/not a valid certificate/);
    const fingerprint = new X509Certificate(pki.caCert).fingerprint256;
    expect(checkCaCertificate(pki.caCert, fingerprint.replace(/:/g, '').toLowerCase()).ca).toBe(true);
    expect(() => checkCaCertificate(pki.caCert, new X509Certificate(otherPki.caCert).fingerprint256)).toThrow(
      /does not match/,
    );
    expect(normalizeFingerprint(`sha256:${'ab'.repeat(32)}`)).toBe('AB'.repeat(32));
    expect(normalizeFingerprint('abc')).toBeNull();
  });

  it('saves the identity and the CA when the CA checks out (0600)', async () => {
    hub = await startFakeEnrollHub({ answer: answer(pki.caCert) });
    const pin = new X509Certificate(pki.caCert).fingerprint256;
    const outcome = await enroll({
      ...base(),
      hubUrl: hub.url,
      caFingerprint: pin,
      extraSettings: { allow_power_actions: false },
    });
    expect(outcome).toEqual({ assetId: 'ast_0123', hubUrl: hub.url, caFingerprint: pin });
    expect(hub.enrollBodies).toEqual([{ token, hostname: 'box', platform: 'linux', agent_version: '0.1.0' }]);
    const saved = JSON.parse(await readFile(configPath, 'utf8')) as Record<string, unknown>;
    expect(saved).toMatchObject({
      hub_url: hub.url,
      asset_id: 'ast_0123',
      credential,
      ca_fingerprint_sha256: pin,
      allow_power_actions: false,
    });
    expect(new X509Certificate(saved.ca_pem as string).fingerprint256).toBe(pin);
    expect((await stat(configPath)).mode & 0o777).toBe(0o600);
  });

  it('refuses a CA certificate that is not a CA, and saves nothing', async () => {
    hub = await startFakeEnrollHub({ answer: answer(pki.leafOnlyCert) });
    await expect(enroll({ ...base(), hubUrl: hub.url })).rejects.toThrow(/not a CA/);
    await nothingSaved();
  });

  it('refuses a CA whose fingerprint does not match the pin, and saves nothing', async () => {
    hub = await startFakeEnrollHub({ answer: answer(pki.caCert) });
    const refused = enroll({
      ...base(),
      hubUrl: hub.url,
      caFingerprint: new X509Certificate(otherPki.caCert).fingerprint256,
    });
    await expect(refused).rejects.toThrow(/does not match the pinned/);
    // The CA seen over the unverified connection is not shown: a user would copy it into the pin.
    const message = await refused.then(
      () => '',
      (error: unknown) => (error as Error).message,
    );
    const seen = new X509Certificate(pki.caCert).fingerprint256;
    expect(message).not.toContain(seen);
    expect(message.toUpperCase()).not.toContain(seen.replace(/:/g, ''));
    expect(message).toMatch(/CA fingerprint/);
    await nothingSaved();
  });

  it('refuses a pin when the hub sends no CA', async () => {
    hub = await startFakeEnrollHub({ answer: answer(null) });
    await expect(enroll({ ...base(), hubUrl: hub.url, caFingerprint: 'AB'.repeat(32) })).rejects.toThrow(
      /sent no CA/,
    );
    await nothingSaved();
  });

  it('reports the hub’s refusal and saves nothing', async () => {
    hub = await startFakeEnrollHub({
      status: 401,
      answer: {
        request_id: 'req_1',
        error: 'unauthorized',
        message: 'enrollment token expired',
        status: 401,
      },
    });
    await expect(enroll({ ...base(), hubUrl: hub.url })).rejects.toThrow(
      'enrollment refused (401 unauthorized): enrollment token expired',
    );
    await nothingSaved();
  });

  it('refuses a credential in an unknown format', async () => {
    const bad = answer(null);
    bad.data.credential = 'svc_abcd_notanagentcredential';
    hub = await startFakeEnrollHub({ answer: bad });
    await expect(enroll({ ...base(), hubUrl: hub.url })).rejects.toThrow(/credential in an unknown format/);
    await nothingSaved();
  });

  it('refuses plain http unless asked for, and only to loopback, before sending anything', async () => {
    hub = await startFakeEnrollHub({ answer: answer(null) });
    await expect(enroll({ ...base(), hubUrl: hub.url, insecureLoopback: false })).rejects.toThrow(
      /insecure-loopback/,
    );
    await expect(enroll({ ...base(), hubUrl: 'http://192.0.2.10:8080' })).rejects.toThrow(
      /insecure-loopback/,
    );
    await expect(enroll({ ...base(), hubUrl: hub.url, token: 'svc_not_a_token' })).rejects.toThrow(
      /enrollment token/,
    );
    expect(hub.enrollBodies).toEqual([]);
  });

  describe('over https with the hub’s own CA', () => {
    it('fetches the CA, checks it signed the hub’s certificate, then enrolls over a verified connection', async () => {
      hub = await startFakeEnrollHub({
        tls: { cert: pki.serverCert, key: pki.serverKey },
        servedCa: pki.caCert,
        answer: answer(pki.caCert),
      });
      const outcome = await enroll({ ...base(), hubUrl: hub.url, insecureLoopback: false });
      expect(outcome.caFingerprint).toBe(new X509Certificate(pki.caCert).fingerprint256);
      expect(hub.caRequests).toBe(1);
      expect(hub.enrollBodies).toHaveLength(1);
      expect(JSON.parse(await readFile(configPath, 'utf8'))).toMatchObject({
        credential,
        ca_fingerprint_sha256: outcome.caFingerprint,
      });
    });

    it('never sends the token when the pin does not match the served CA', async () => {
      hub = await startFakeEnrollHub({
        tls: { cert: pki.serverCert, key: pki.serverKey },
        servedCa: pki.caCert,
        answer: answer(pki.caCert),
      });
      await expect(
        enroll({
          ...base(),
          hubUrl: hub.url,
          caFingerprint: new X509Certificate(otherPki.caCert).fingerprint256,
        }),
      ).rejects.toThrow(/does not match/);
      expect(hub.enrollBodies).toEqual([]);
      await nothingSaved();
    });

    it('never sends the token when the served CA did not issue the hub’s certificate', async () => {
      hub = await startFakeEnrollHub({
        tls: { cert: pki.serverCert, key: pki.serverKey },
        servedCa: otherPki.caCert,
        answer: answer(otherPki.caCert),
      });
      await expect(enroll({ ...base(), hubUrl: hub.url })).rejects.toThrow(/did not issue/);
      expect(hub.enrollBodies).toEqual([]);
      await nothingSaved();
    });

    it('never sends the token when the served "CA" is not a CA', async () => {
      hub = await startFakeEnrollHub({
        tls: { cert: pki.serverCert, key: pki.serverKey },
        servedCa: pki.leafOnlyCert,
        answer: answer(pki.caCert),
      });
      await expect(enroll({ ...base(), hubUrl: hub.url })).rejects.toThrow(/not a CA/);
      expect(hub.enrollBodies).toEqual([]);
    });

    it('refuses when the enrollment answer carries a different CA than the one served', async () => {
      hub = await startFakeEnrollHub({
        tls: { cert: pki.serverCert, key: pki.serverKey },
        servedCa: pki.caCert,
        answer: answer(otherPki.caCert),
      });
      await expect(enroll({ ...base(), hubUrl: hub.url })).rejects.toThrow(/different CA/);
      await nothingSaved();
    });
  });
});
