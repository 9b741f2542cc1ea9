/**
 * `svc-agent enroll`: trade an enrollment token for this machine's identity (asset id, credential, CA).
 *
 * Trust on first use, done carefully: the token is only ever sent over a verified connection. A hub whose
 * certificate the system trusts is used as is. Otherwise the agent first fetches the hub's CA without
 * verification, checks that it IS a CA (basicConstraints CA:true), that it matches the pin when one was
 * given, and that it issued the certificate the hub presented; then it enrolls over a connection verified
 * against that CA. The CA in the enrollment answer gets the same checks before anything is saved.
 */
import http from 'node:http';
import https from 'node:https';
import { X509Certificate } from 'node:crypto';
import { TLSSocket } from 'node:tls';
import { Compile } from 'typebox/compile';
import { EnrollResponse, agentCredentialPattern, enrollmentTokenPattern } from '@svc/protocol';
import { isLoopbackHost } from '../channel/client.js';
import { updateSettingsFile } from '../config/settings-file.js';
import { parseHubUrl } from '../config/settings.js';
import type { PlatformName } from '../platform/platform.js';
import { agentVersion } from '../version.js';

export class EnrollError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnrollError';
  }
}

/** `AB:CD:…`, `abcd…` or `sha256:abcd…` → 64 uppercase hex digits; null if it is not a SHA-256. */
export function normalizeFingerprint(value: string): string | null {
  const hex = value
    .trim()
    .replace(/^sha-?256[:=]/i, '')
    .replace(/[:\s]/g, '')
    .toUpperCase();
  return /^[0-9A-F]{64}$/.test(hex) ? hex : null;
}

/** The CA certificate if it is one (and matches the pin); EnrollError otherwise. */
export function checkCaCertificate(pem: string, pin: string | null): X509Certificate {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    throw new EnrollError('the hub sent a CA that is not a valid certificate; refusing to trust it');
  }
  if (!cert.ca)
    throw new EnrollError(
      `the certificate the hub sent as its CA is not a CA (IsCA is false; subject ${cert.subject}); refusing to trust it`,
    );
  if (pin !== null) {
    const expected = normalizeFingerprint(pin);
    const actual = normalizeFingerprint(cert.fingerprint256);
    // The fingerprint seen here came over an unverified connection: showing it would invite copying an
    // attacker's CA into --ca-fingerprint, so the message says where the right value is instead.
    if (expected !== actual)
      throw new EnrollError(
        `the CA this hub presents does not match the pinned ${pin}; refusing to trust it. Pin the CA fingerprint ` +
          'the hub logs at start-up ("CA fingerprint", also in its "enroll an agent" line), read where you trust ' +
          "the hub's output; the server certificate's fingerprint is not the CA's",
      );
  }
  return cert;
}

interface HttpAnswer {
  status: number;
  body: string;
  peer: X509Certificate | null;
}

type TlsMode = { kind: 'plain' } | { kind: 'system' } | { kind: 'ca'; pem: string } | { kind: 'unverified' };

function request(
  url: URL,
  method: 'GET' | 'POST',
  body: string | null,
  tls: TlsMode,
  timeoutMs: number,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== null) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const tlsOptions =
      tls.kind === 'ca'
        ? { ca: tls.pem, rejectUnauthorized: true }
        : tls.kind === 'unverified'
          ? { rejectUnauthorized: false }
          : { rejectUnauthorized: true };
    const req =
      url.protocol === 'https:'
        ? https.request(url, { method, headers, timeout: timeoutMs, agent: false, ...tlsOptions })
        : http.request(url, { method, headers, timeout: timeoutMs, agent: false });
    req.on('response', (res) => {
      const raw = res.socket instanceof TLSSocket ? res.socket.getPeerCertificate().raw : undefined;
      const peer = raw ? new X509Certificate(raw) : null;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > 1024 * 1024) req.destroy(new Error('answer too large'));
        else chunks.push(chunk);
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), peer });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url.host} in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

const certificateErrors = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
]);

function isUntrustedCertificate(error: unknown): boolean {
  return certificateErrors.has(String((error as NodeJS.ErrnoException).code));
}

export interface EnrollOptions {
  hubUrl: string;
  token: string;
  caFingerprint?: string | null;
  /** Allow plain http:// to a loopback hub (a hub with TLS disabled, in development). */
  insecureLoopback?: boolean;
  hostname: string;
  platform: PlatformName;
  configPath: string;
  timeoutMs?: number;
  /** Also written to the settings file (for example allow_power_actions=false for a development agent). */
  extraSettings?: Record<string, unknown>;
}

export interface EnrollOutcome {
  assetId: string;
  hubUrl: string;
  caFingerprint: string | null;
}

const checkEnrollResponse = Compile(EnrollResponse);

export async function enroll(options: EnrollOptions): Promise<EnrollOutcome> {
  const hubUrl = parseHubUrl(options.hubUrl);
  if (!hubUrl) throw new EnrollError(`not an http(s) URL: ${options.hubUrl}`);
  if (!enrollmentTokenPattern.test(options.token))
    throw new EnrollError('the enrollment token should look like sve_ followed by 52 letters and digits');
  const pin = options.caFingerprint ?? null;
  if (pin !== null && normalizeFingerprint(pin) === null)
    throw new EnrollError('--ca-fingerprint takes a SHA-256 fingerprint (64 hex digits, colons allowed)');
  const base = new URL(hubUrl);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const at = (suffix: string) => new URL(`${hubUrl}${suffix}`);
  if (base.protocol === 'http:' && !(options.insecureLoopback && isLoopbackHost(base.hostname))) {
    throw new EnrollError(
      'plain http:// is only allowed to a loopback hub with --insecure-loopback; use https',
    );
  }

  const body = JSON.stringify({
    token: options.token,
    hostname: options.hostname.slice(0, 253),
    platform: options.platform,
    agent_version: agentVersion,
  });
  let answer: HttpAnswer | null = null;
  let fetchedCa: X509Certificate | null = null;
  if (base.protocol === 'http:') {
    answer = await request(at('/api/v1/enroll'), 'POST', body, { kind: 'plain' }, timeoutMs).catch(
      (error: unknown) => {
        throw new EnrollError(`cannot reach the hub: ${(error as Error).message}`);
      },
    );
  } else if (pin === null) {
    // A publicly trusted hub needs nothing more; a pin means the hub's own CA, so skip straight to it.
    try {
      answer = await request(at('/api/v1/enroll'), 'POST', body, { kind: 'system' }, timeoutMs);
    } catch (error) {
      if (!isUntrustedCertificate(error))
        throw new EnrollError(`cannot reach the hub: ${(error as Error).message}`);
    }
  }
  if (!answer) {
    // Fetch the CA without the token, check it, then enroll over a connection verified against it.
    const caAnswer = await request(
      at('/api/v1/tls/ca.crt'),
      'GET',
      null,
      { kind: 'unverified' },
      timeoutMs,
    ).catch((error: unknown) => {
      throw new EnrollError(`cannot reach the hub: ${(error as Error).message}`);
    });
    if (caAnswer.status !== 200)
      throw new EnrollError(
        `the hub's certificate is not trusted and it serves no CA (GET /api/v1/tls/ca.crt: ${caAnswer.status})`,
      );
    fetchedCa = checkCaCertificate(caAnswer.body, pin);
    if (
      !caAnswer.peer ||
      !caAnswer.peer.checkIssued(fetchedCa) ||
      !caAnswer.peer.verify(fetchedCa.publicKey)
    ) {
      throw new EnrollError(
        'the CA the hub serves did not issue the certificate it presents; refusing to trust it',
      );
    }
    try {
      answer = await request(
        at('/api/v1/enroll'),
        'POST',
        body,
        { kind: 'ca', pem: fetchedCa.toString() },
        timeoutMs,
      );
    } catch (error) {
      throw new EnrollError(
        `cannot enroll over a connection verified with the hub's CA: ${(error as Error).message}`,
      );
    }
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    throw new EnrollError(`the hub answered ${answer.status} with something that is not JSON`);
  }
  if (answer.status !== 201 && answer.status !== 200) {
    const envelope = parsed as { error?: unknown; message?: unknown };
    const code = typeof envelope.error === 'string' ? ` ${envelope.error}` : '';
    const message = typeof envelope.message === 'string' ? envelope.message : 'no message';
    throw new EnrollError(`enrollment refused (${answer.status}${code}): ${message}`);
  }
  const data = (parsed as { data?: unknown }).data;
  if (!checkEnrollResponse.Check(data))
    throw new EnrollError('the hub answered the enrollment with an unexpected shape');
  if (!agentCredentialPattern.test(data.credential))
    throw new EnrollError('the hub sent a credential in an unknown format');

  let ca: X509Certificate | null = fetchedCa;
  if (data.ca_pem !== null) {
    const sent = checkCaCertificate(data.ca_pem, pin);
    if (fetchedCa && sent.fingerprint256 !== fetchedCa.fingerprint256)
      throw new EnrollError('the hub sent a different CA than the one it serves; refusing to trust it');
    ca = sent;
  } else if (pin !== null && !fetchedCa) {
    throw new EnrollError('a CA fingerprint was pinned but the hub sent no CA');
  }

  await updateSettingsFile(options.configPath, {
    ...options.extraSettings,
    hub_url: hubUrl,
    asset_id: data.asset_id,
    credential: data.credential,
    ca_pem: ca ? ca.toString() : null,
    ca_fingerprint_sha256: ca ? ca.fingerprint256 : null,
  });
  return { assetId: data.asset_id, hubUrl, caFingerprint: ca ? ca.fingerprint256 : null };
}
