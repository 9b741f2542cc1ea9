/**
 * Where the built-in TLS material lives. The public CA certificate sits in `<data>/tls/` (shareable, e.g. as
 * a volume for agents); the server's private key in `<data>/tls-private/` (0700), and the CA's private key
 * in a directory of its own outside the data directory (SVC_TLS_CA_KEY_DIR, 0700), not beside the hub key
 * that unseals it. Both keys are sealed with the hub key, as are the TLS session ticket keys (`tls-private/`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SecretBox } from '../secret-box.js';
import type { KeyAndCert } from './certificates.js';

export interface TlsPaths {
  publicDir: string;
  privateDir: string;
  caKeyDir: string;
  caCert: string;
  caKey: string;
  /** Where hubs before SVC_TLS_CA_KEY_DIR kept the CA key; moved at start. */
  legacyCaKey: string;
  serverCert: string;
  serverKey: string;
  /** The sealed TLS session ticket keys (decision 0072). */
  ticketKeys: string;
}

/** The public folder under the data directory: the CA certificate, shareable with agents. */
export const tlsPublicDirName = 'tls';

const caKeyFile = 'ca.key.sealed';

export function tlsPaths(dataDir: string, caKeyDir: string): TlsPaths {
  const publicDir = path.join(dataDir, tlsPublicDirName);
  const privateDir = path.join(dataDir, 'tls-private');
  return {
    publicDir,
    privateDir,
    caKeyDir,
    caCert: path.join(publicDir, 'ca.crt'),
    caKey: path.join(caKeyDir, caKeyFile),
    legacyCaKey: path.join(privateDir, caKeyFile),
    serverCert: path.join(publicDir, 'server.crt'),
    serverKey: path.join(privateDir, 'server.key.sealed'),
    ticketKeys: path.join(privateDir, 'ticket-keys.sealed'),
  };
}

/**
 * Moves a CA key from `<data>/tls-private/` to the CA key directory. Returns what it did; a key already in the
 * new place wins, and an old copy that differs from it is left for the operator (never deleted unread).
 */
export function migrateCaKey(paths: TlsPaths): 'none' | 'moved' | 'removed-duplicate' | 'conflict' {
  if (!fs.existsSync(paths.legacyCaKey)) return 'none';
  if (fs.existsSync(paths.caKey)) {
    if (!fs.readFileSync(paths.caKey).equals(fs.readFileSync(paths.legacyCaKey))) return 'conflict';
    fs.rmSync(paths.legacyCaKey);
    return 'removed-duplicate';
  }
  makePrivateDir(paths.caKeyDir);
  // Copy, then remove: the two directories may sit on different file systems, where rename fails.
  writeAtomic(paths.caKey, fs.readFileSync(paths.legacyCaKey, 'utf8'), 0o600);
  fs.rmSync(paths.legacyCaKey);
  return 'moved';
}

function makePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
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
  fs.chmodSync(temp, mode);
  const fd = fs.openSync(temp, 'r');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(temp, file);
}

/** Writes a file of the private folder (0600, in a 0700 folder). */
export function writePrivateFile(paths: TlsPaths, file: string, text: string): void {
  makePrivateDir(paths.privateDir);
  writeAtomic(file, text, 0o600);
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
  makePrivateDir(path.dirname(keyFile));
  writeAtomic(keyFile, `${box.seal(pair.keyPem, context)}\n`, 0o600);
  writeAtomic(certFile, pair.certPem, 0o644);
}
