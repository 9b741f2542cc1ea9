/**
 * Where the built-in TLS material lives. The public CA certificate sits in `<data>/tls/` (shareable, e.g. as
 * a volume for agents); private keys sit apart in `<data>/tls-private/` (0700), sealed with the hub key.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SecretBox } from '../secret-box.js';
import type { KeyAndCert } from './certificates.js';

export interface TlsPaths {
  publicDir: string;
  privateDir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
}

/** The public folder under the data directory: the CA certificate, shareable with agents. */
export const tlsPublicDirName = 'tls';

export function tlsPaths(dataDir: string): TlsPaths {
  const publicDir = path.join(dataDir, tlsPublicDirName);
  const privateDir = path.join(dataDir, 'tls-private');
  return {
    publicDir,
    privateDir,
    caCert: path.join(publicDir, 'ca.crt'),
    caKey: path.join(privateDir, 'ca.key.sealed'),
    serverCert: path.join(publicDir, 'server.crt'),
    serverKey: path.join(privateDir, 'server.key.sealed'),
  };
}

export function readPair(
  box: SecretBox,
  certFile: string,
  keyFile: string,
  context: string,
): KeyAndCert | null {
  if (!fs.existsSync(certFile) || !fs.existsSync(keyFile)) return null;
  return {
    certPem: fs.readFileSync(certFile, 'utf8'),
    keyPem: box.open(fs.readFileSync(keyFile, 'utf8').trim(), context),
  };
}

/** Writes atomically (temp file + rename) so a crash never leaves half a certificate. */
function writeAtomic(file: string, text: string, mode: number): void {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text, { mode });
  fs.renameSync(temp, file);
  fs.chmodSync(file, mode);
}

export function writePair(
  box: SecretBox,
  paths: TlsPaths,
  certFile: string,
  keyFile: string,
  pair: KeyAndCert,
  context: string,
): void {
  fs.mkdirSync(paths.publicDir, { recursive: true, mode: 0o755 });
  fs.mkdirSync(paths.privateDir, { recursive: true, mode: 0o700 });
  fs.chmodSync(paths.privateDir, 0o700);
  writeAtomic(keyFile, `${box.seal(pair.keyPem, context)}\n`, 0o600);
  writeAtomic(certFile, pair.certPem, 0o644);
}
