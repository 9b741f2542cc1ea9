/**
 * The hub's CA at `svc login`, trusted on first use the way the agent's enrollment does it: a hub the
 * system trusts needs nothing; otherwise the CA is fetched over an unverified connection and kept only when
 * it IS a CA, it issued the certificate the hub presented, and it matches the fingerprint the user pinned
 * (or, at a terminal, the one the user confirmed). The key is sent only after that, over a verified connection.
 */
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import { TLSSocket } from 'node:tls';
import { CliError, exitCodes } from './exit-codes.js';

/** `AB:CD:…`, `abcd…` or `sha256:abcd…` → 64 uppercase hex digits; null when it is not a SHA-256. */
function normalizeFingerprint(value: string): string | null {
  const hex = value
    .trim()
    .replace(/^sha-?256[:=]/i, '')
    .replace(/[:\s]/g, '')
    .toUpperCase();
  return /^[0-9A-F]{64}$/.test(hex) ? hex : null;
}

/** The certificate when it is a CA; CliError otherwise. */
export function parseCaCertificate(pem: string, source: string): X509Certificate {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    throw new CliError(`${source} is not a PEM certificate`, exitCodes.usage);
  }
  if (!cert.ca) throw new CliError(`${source} is not a CA certificate (${cert.subject})`, exitCodes.usage);
  return cert;
}

interface Fetched {
  status: number;
  body: string;
  peer: X509Certificate | null;
}

function getUnverified(url: URL, timeoutMs: number): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { rejectUnauthorized: false, agent: false, timeout: timeoutMs }, (res) => {
      const raw = res.socket instanceof TLSSocket ? res.socket.getPeerCertificate().raw : undefined;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.length > 64 * 1024) req.destroy(new Error('the CA answer is too large'));
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body, peer: raw ? new X509Certificate(raw) : null });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url.host}`)));
    req.on('error', reject);
    req.end();
  });
}

/** The CA a hub presents, checked: a CA, the issuer of the hub's certificate, and the pin when given. */
export async function fetchHubCa(
  hubUrl: string,
  pin: string | null,
  timeoutMs = 15_000,
): Promise<{ pem: string; fingerprint: string }> {
  const answer = await getUnverified(new URL('/api/v1/tls/ca.crt', hubUrl), timeoutMs);
  if (answer.status !== 200) {
    throw new CliError(
      `${hubUrl} serves no CA (GET /api/v1/tls/ca.crt answered ${String(answer.status)})`,
      exitCodes.unreachable,
      'pass the CA that signed the hub certificate with --ca <file>',
    );
  }
  const cert = parseCaCertificate(answer.body, 'the certificate the hub sent as its CA');
  if (!answer.peer?.checkIssued(cert)) {
    throw new CliError(
      'the CA the hub sent did not issue the certificate it presents; refusing to trust it',
      exitCodes.unreachable,
      'pass the right CA with --ca <file>',
    );
  }
  if (pin !== null && normalizeFingerprint(pin) !== normalizeFingerprint(cert.fingerprint256)) {
    // The fingerprint seen came over an unverified connection: it is not shown, so nobody copies it as a pin.
    throw new CliError(
      `the CA this hub presents does not match the pinned ${pin}; refusing to trust it`,
      exitCodes.unreachable,
      'pin the "CA fingerprint" the hub logs at start-up, read where you trust the hub\'s output',
    );
  }
  return { pem: answer.body, fingerprint: cert.fingerprint256 };
}
