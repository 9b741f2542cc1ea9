/**
 * Test certificates made with the openssl command line (present on Debian and in CI): a CA, a server
 * certificate it signs for 127.0.0.1, and a self-signed certificate that is not a CA. Test support only.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestPki {
  caCert: string;
  serverCert: string;
  serverKey: string;
  /** Self-signed with basicConstraints CA:FALSE. */
  leafOnlyCert: string;
}

export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function makeTestPki(): TestPki {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-agent-pki-'));
  const file = (name: string) => path.join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  try {
    ssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.crt'),
      '-days',
      '2',
      '-subj',
      '/CN=svc test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    ssl('req', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=127.0.0.1');
    writeFileSync(
      file('server.ext'),
      'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
    );
    ssl(
      'x509',
      '-req',
      '-in',
      file('server.csr'),
      '-CA',
      file('ca.crt'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-out',
      file('server.crt'),
      '-days',
      '2',
      '-extfile',
      file('server.ext'),
    );
    ssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      file('leaf.key'),
      '-out',
      file('leaf.crt'),
      '-days',
      '2',
      '-subj',
      '/CN=not a CA',
      '-addext',
      'basicConstraints=critical,CA:FALSE',
    );
    return {
      caCert: readFileSync(file('ca.crt'), 'utf8'),
      serverCert: readFileSync(file('server.crt'), 'utf8'),
      serverKey: readFileSync(file('server.key'), 'utf8'),
      leafOnlyCert: readFileSync(file('leaf.crt'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
