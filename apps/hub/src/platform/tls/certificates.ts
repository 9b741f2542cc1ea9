/**
 * Certificates: the built-in CA (ECDSA P-256, 10 years), server certificates it issues (1 year), and checks
 * of certificate chains a person uploads. Generation uses @peculiar/x509 over WebCrypto; inspection uses
 * node's X509Certificate.
 */
import 'reflect-metadata';
import { X509Certificate, createPrivateKey, randomBytes, webcrypto, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';
import {
  decodeNameConstraints,
  encodeNameConstraints,
  nameConstraintsOid,
  type NameConstraints,
} from './name-constraints.js';

// @peculiar/x509 is typed against the DOM's WebCrypto, which this project's lib leaves out; node's webcrypto
// is the same API, so node's types are used here.
type KeyPair = webcrypto.CryptoKeyPair;
type SigningKey = webcrypto.CryptoKey;

x509.cryptoProvider.set(webcrypto);

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const dayMs = 24 * 60 * 60 * 1000;
const caLifetimeDays = 3650;
const serverLifetimeDays = 365;
export const renewBeforeDays = 30;

export interface KeyAndCert {
  certPem: string;
  keyPem: string;
}

export interface CertificateDetails {
  subject: string;
  issuer: string;
  not_before: string;
  not_after: string;
  fingerprint_sha256: string;
  subject_alt_names: string[];
  is_ca: boolean;
}

async function exportKeyPem(key: SigningKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  const b64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd();
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`;
}

async function importKeyPem(pem: string): Promise<SigningKey> {
  const der = createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
  return webcrypto.subtle.importKey('pkcs8', der, ecdsa, true, ['sign']);
}

function serial(): string {
  // Positive 16-byte serial: clear the top bit.
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}

async function newKeyPair(): Promise<KeyPair> {
  return webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify']);
}

/**
 * A new CA. With `constraints`, it carries them as a critical nameConstraints extension: clients then accept
 * what it signs only for those names and addresses.
 */
export async function createCertificateAuthority(
  now: Date,
  commonName = 'svc hub CA',
  constraints: NameConstraints | null = null,
): Promise<KeyAndCert> {
  const keys = await newKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + caLifetimeDays * dayMs),
    signingAlgorithm: ecdsa,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ...(constraints
        ? [new x509.Extension(nameConstraintsOid, true, encodeNameConstraints(constraints))]
        : []),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await exportKeyPem(keys.privateKey) };
}

/**
 * The name constraints a CA certificate carries: `null` when it has none (a CA made before they were added),
 * `'unreadable'` when it has some this code cannot read.
 */
export function nameConstraintsOf(caPem: string): NameConstraints | 'unreadable' | null {
  const extension = new x509.X509Certificate(caPem).getExtension(nameConstraintsOid);
  if (!extension) return null;
  return decodeNameConstraints(Buffer.from(extension.value)) ?? 'unreadable';
}

/** A server certificate for these host names and addresses, signed by the CA. The PEM holds leaf then CA. */
export async function issueServerCertificate(
  ca: KeyAndCert,
  names: readonly string[],
  now: Date,
): Promise<KeyAndCert> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importKeyPem(ca.keyPem);
  const keys = await newKeyPair();
  const unique = [...new Set(names.filter(Boolean))];
  // Never an address as the common name: verifiers read a dotted CN as a DNS name and would check it against
  // the CA's DNS name constraints.
  const first = unique.find((n) => isIP(n) === 0) ?? 'svc hub';
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${first}`,
    issuer: caCert.subject,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + serverLifetimeDays * dayMs),
    signingAlgorithm: ecdsa,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        unique.map((n) => (isIP(n) ? { type: 'ip' as const, value: n } : { type: 'dns' as const, value: n })),
      ),
      await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: `${cert.toString('pem')}\n${ca.certPem}`, keyPem: await exportKeyPem(keys.privateKey) };
}

/** A name as it reads in a certificate's SAN list: `DNS:host` or `IP:addr` (IPv6 in its short form). */
export function sanOf(name: string): string {
  if (isIP(name) === 6) return `IP:${new URL(`http://[${name}]`).hostname.slice(1, -1)}`;
  return isIP(name) === 4 ? `IP:${name}` : `DNS:${name}`;
}

/** Splits a PEM bundle into its certificates, in order. */
function splitPemCertificates(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

export function describeCertificate(pem: string): CertificateDetails {
  const cert = new X509Certificate(pem);
  return {
    subject: cert.subject.replace(/\n/g, ', '),
    issuer: cert.issuer.replace(/\n/g, ', '),
    not_before: new Date(cert.validFrom).toISOString(),
    not_after: new Date(cert.validTo).toISOString(),
    fingerprint_sha256: cert.fingerprint256,
    subject_alt_names: (cert.subjectAltName ?? '')
      .split(', ')
      .filter(Boolean)
      .map((s) => (s.startsWith('IP Address:') ? sanOf(s.slice('IP Address:'.length)) : s)),
    is_ca: cert.ca,
  };
}

export function needsRenewal(certPem: string, now: Date): boolean {
  const notAfter = new Date(new X509Certificate(certPem).validTo).getTime();
  return notAfter - now.getTime() <= renewBeforeDays * dayMs;
}

export class CertificateProblem extends Error {}

const uploadLimits = { pemBytes: 65_536, chainLength: 8 } as const;

/**
 * Checks an uploaded chain and key: PEM, not expired, the key unencrypted and matching the first certificate,
 * each certificate issued by the next. Returns the normalized PEMs or throws a CertificateProblem saying what
 * is wrong.
 */
export function checkUploadedPair(chainPem: string, keyPem: string, now: Date): KeyAndCert {
  if (
    Buffer.byteLength(chainPem) > uploadLimits.pemBytes ||
    Buffer.byteLength(keyPem) > uploadLimits.pemBytes
  ) {
    throw new CertificateProblem(`certificate and key must each be at most ${uploadLimits.pemBytes} bytes`);
  }
  const blocks = splitPemCertificates(chainPem);
  if (blocks.length === 0) throw new CertificateProblem('certificate: no "BEGIN CERTIFICATE" block found');
  if (blocks.length > uploadLimits.chainLength) {
    throw new CertificateProblem(
      `certificate: at most ${uploadLimits.chainLength} certificates in the chain`,
    );
  }
  let certs: X509Certificate[];
  try {
    certs = blocks.map((b) => new X509Certificate(b));
  } catch {
    throw new CertificateProblem('certificate: a block is not a valid X.509 certificate');
  }
  if (/ENCRYPTED/.test(keyPem))
    throw new CertificateProblem('private_key: encrypted keys are not supported; upload it unencrypted');
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    throw new CertificateProblem('private_key: not a valid PEM private key');
  }
  const leaf = certs[0] as X509Certificate;
  if (!leaf.checkPrivateKey(key)) {
    throw new CertificateProblem('private_key: does not match the first certificate of the chain');
  }
  if (new Date(leaf.validTo).getTime() <= now.getTime())
    throw new CertificateProblem('certificate: has expired');
  if (new Date(leaf.validFrom).getTime() > now.getTime())
    throw new CertificateProblem('certificate: is not valid yet');
  for (let i = 0; i + 1 < certs.length; i++) {
    const child = certs[i] as X509Certificate;
    const parent = certs[i + 1] as X509Certificate;
    if (!child.checkIssued(parent) || !child.verify(parent.publicKey)) {
      throw new CertificateProblem(
        `certificate: certificate ${i + 1} of the chain is not issued by certificate ${i + 2}`,
      );
    }
  }
  return {
    certPem: blocks.join('\n') + '\n',
    keyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
