import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { X509Certificate, randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from '../../config/env.js';
import { ManualClock } from '../clock.js';
import { createSecretBox, type SecretBox } from '../secret-box.js';
import {
  createCertificateAuthority,
  describeCertificate,
  issueServerCertificate,
  nameConstraintsOf,
  type KeyAndCert,
} from './certificates.js';
import { readPair, tlsPaths, writePair } from './tls-files.js';
import { TlsManager, tlsPolicy } from './tls-manager.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

function setup(): { dataDir: string; caKeyDir: string; box: SecretBox } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ca-'));
  made.push(root);
  return {
    dataDir: path.join(root, 'data'),
    caKeyDir: path.join(root, 'data-ca-key'),
    box: createSecretBox(randomBytes(32)),
  };
}

/** A TLS manager in auto mode, as the hub makes it, with its log captured. */
async function startManager(
  where: { dataDir: string; caKeyDir: string; box: SecretBox },
  hostnames: string[] = [],
  caNames: string[] = [],
): Promise<{ manager: TlsManager; log: LogLine[] }> {
  const log: LogLine[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write(line: string) {
        log.push(JSON.parse(line) as LogLine);
      },
    },
  );
  const manager = new TlsManager({
    mode: 'auto',
    ...where,
    hostnames,
    caNames,
    externalCertFile: null,
    externalKeyFile: null,
    clock: new ManualClock(new Date()),
    logger,
    loadOverride: () => Promise.resolve(null),
  });
  await manager.init();
  return { manager, log };
}

function caOf(where: { dataDir: string; caKeyDir: string; box: SecretBox }): KeyAndCert {
  const paths = tlsPaths(where.dataDir, where.caKeyDir);
  const ca = readPair(where.box, paths.caCert, paths.caKey, 'tls:ca-key');
  if (!ca) throw new Error('no CA');
  return ca;
}

/**
 * Serves `pair` on loopback and connects as a client that trusts `caPem`: 'trusted' when the chain verifies
 * (the host name check is left out, so only the CA's verdict counts), else the verification error's code.
 */
async function handshake(pair: KeyAndCert, caPem: string): Promise<string> {
  const server = tls.createServer({ cert: pair.certPem, key: pair.keyPem, ...tlsPolicy }, (socket) => {
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    return await new Promise<string>((resolve) => {
      const socket = tls.connect(
        { host: '127.0.0.1', port, ca: caPem, checkServerIdentity: () => undefined },
        () => {
          socket.destroy();
          resolve('trusted');
        },
      );
      socket.on('error', (error: NodeJS.ErrnoException) => {
        resolve(`${error.code ?? ''}: ${error.message}`);
      });
    });
  } finally {
    server.close();
  }
}

describe("the built-in CA is limited to the hub's own names (X.509 name constraints, decision 0052)", () => {
  it("refuses a leaf for any name outside the hub's names, the LAN's included, and accepts the hub's names", async () => {
    const where = setup();
    await startManager(where, ['hub.example.net']);
    const ca = caOf(where);
    const now = new Date();
    // What someone holding the CA key would sign: a public site, and the router, NAS and printer of the LAN.
    for (const names of [
      ['www.example.com'],
      ['8.8.8.8'],
      ['router.lan'],
      ['nas.local'],
      ['router.home.arpa'],
      ['db.internal'],
      ['192.168.1.1'],
      ['10.0.0.1'],
      ['example.net'],
    ]) {
      const forged = await issueServerCertificate(ca, names, now);
      // OpenSSL's "permitted subtree violation" (47), which node reports under the code UNSPECIFIED.
      expect([names[0], await handshake(forged, ca.certPem)]).toEqual([
        names[0],
        expect.stringMatching(/^UNSPECIFIED: /),
      ]);
    }
    // The hub's own names and addresses (configured, host name, loopback) still work, subdomains of its names too.
    for (const names of [
      ['hub.example.net'],
      ['api.hub.example.net'],
      ['localhost'],
      ['127.0.0.1'],
      [os.hostname()],
    ]) {
      const own = await issueServerCertificate(ca, names, now);
      expect([names[0], await handshake(own, ca.certPem)]).toEqual([names[0], 'trusted']);
    }
  });

  it('also certifies what SVC_TLS_CA_NAMES lists when the CA is made, and nothing beside it', async () => {
    const where = setup();
    await startManager(where, ['hub.example.net'], ['lb.example.lan', '192.0.2.0/24']);
    const ca = caOf(where);
    const now = new Date();
    for (const [name, verdict] of [
      ['lb.example.lan', 'trusted'],
      ['192.0.2.44', 'trusted'],
      ['other.example.lan', 'UNSPECIFIED'],
      ['192.0.3.1', 'UNSPECIFIED'],
    ] as const) {
      const leaf = await issueServerCertificate(ca, [name], now);
      expect([name, (await handshake(leaf, ca.certPem)).split(':')[0]]).toEqual([name, verdict]);
    }
  });

  it("marks the constraints critical and lists the hub's names and single addresses, no local domain or range", async () => {
    const where = setup();
    await startManager(where, ['hub.example.net', '203.0.113.7']);
    const ca = new X509Certificate(caOf(where).certPem);
    const constraints = nameConstraintsOf(ca.toString());
    expect(constraints).not.toBeNull();
    expect(constraints).not.toBe('unreadable');
    const { dns, ip } = constraints as Exclude<typeof constraints, null | 'unreadable'>;
    expect(dns).toEqual(
      expect.arrayContaining(['localhost', 'hub.example.net', os.hostname().toLowerCase()]),
    );
    for (const wide of ['local', 'lan', 'home.arpa', 'internal', 'example.net'])
      expect(dns).not.toContain(wide);
    expect(ip).toEqual(
      expect.arrayContaining([
        { address: '127.0.0.1', prefix: 32 },
        { address: '203.0.113.7', prefix: 32 },
      ]),
    );
    // Single addresses only: no private range (10/8, 192.168/16…) unless the operator lists one.
    for (const range of ip) expect(range.prefix).toBe(range.address.includes(':') ? 128 : 32);
    // Critical, as RFC 5280 requires: a client that cannot enforce it must refuse the CA.
    const der = ca.raw;
    const oid = Buffer.from([0x06, 0x03, 0x55, 0x1d, 0x1e]);
    const at = der.indexOf(oid);
    expect(at).toBeGreaterThan(0);
    expect([...der.subarray(at + oid.length, at + oid.length + 3)]).toEqual([0x01, 0x01, 0xff]);
  });

  it('keeps a CA an older hub made for whole local domains working, and warns once how to rotate it', async () => {
    const where = setup();
    const paths = tlsPaths(where.dataDir, where.caKeyDir);
    const older = await createCertificateAuthority(new Date(), undefined, {
      dns: ['localhost', 'local', 'lan', 'home.arpa', 'internal', 'hub.example.net'],
      ip: [
        { address: '127.0.0.0', prefix: 8 },
        { address: '10.0.0.0', prefix: 8 },
        { address: '192.168.0.0', prefix: 16 },
      ],
    });
    writePair(where.box, paths, paths.caCert, paths.caKey, older, 'tls:ca-key');
    const { manager, log } = await startManager(where, ['hub.example.net']);
    // Agents pinned it: the same CA goes on serving.
    expect(manager.status().ca!.fingerprint_sha256).toBe(new X509Certificate(older.certPem).fingerprint256);
    const warnings = log.filter((l) => l.level === 40 && /may sign for more/.test(l.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.beyond).toEqual(
      expect.arrayContaining(['lan', 'local', 'home.arpa', 'internal', '10.0.0.0/8', '192.168.0.0/16']),
    );
    expect(warnings[0]!.msg).toContain(paths.caKey);
    expect(warnings[0]!.msg).toMatch(/SVC_TLS_CA_NAMES/);
    expect(warnings[0]!.msg).toMatch(/enroll every agent again/);
  });

  it('leaves names the CA may not certify out of the server certificate, with an error saying how to re-issue', async () => {
    const where = setup();
    await startManager(where, ['hub.example.net']);
    const before = caOf(where).certPem;
    const { manager, log } = await startManager(where, ['hub.example.net', 'moved.example.com']);
    expect(caOf(where).certPem).toBe(before);
    const names = manager.status().certificate!.subject_alt_names;
    expect(names).toContain('DNS:hub.example.net');
    expect(names).not.toContain('DNS:moved.example.com');
    const error = log.find((l) => l.level === 50);
    expect(error?.outside).toEqual(['moved.example.com']);
    expect(error?.msg).toMatch(/re-issue the CA/);
    expect(error?.msg).toContain(tlsPaths(where.dataDir, where.caKeyDir).caKey);
  });

  it('keeps a CA made without constraints working, and warns once how to re-issue it', async () => {
    const where = setup();
    const paths = tlsPaths(where.dataDir, where.caKeyDir);
    const old = await createCertificateAuthority(new Date());
    writePair(where.box, paths, paths.caCert, paths.caKey, old, 'tls:ca-key');
    const { manager, log } = await startManager(where);
    expect(manager.status().ca!.fingerprint_sha256).toBe(new X509Certificate(old.certPem).fingerprint256);
    expect(manager.status().certificate!.issuer).toBe('CN=svc hub CA');
    const warnings = log.filter((l) => l.level === 40 && /no name constraints/.test(l.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/re-issue/);
  });
});

describe('the CA key lives apart from the data directory', () => {
  it('writes the sealed CA key to its own 0700 directory, not beside encryption.key', async () => {
    const where = setup();
    await startManager(where);
    const paths = tlsPaths(where.dataDir, where.caKeyDir);
    expect(fs.readdirSync(where.caKeyDir)).toEqual(['ca.key.sealed']);
    expect(fs.statSync(where.caKeyDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(paths.caKey).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(paths.caKey, 'utf8')).not.toContain('PRIVATE KEY');
    const inData = fs.readdirSync(where.dataDir, { recursive: true }).map(String);
    expect(inData.filter((f) => f.includes('ca.key'))).toEqual([]);
  });

  it('moves the CA key of an older hub out of <data>/tls-private at start, keeping the same CA', async () => {
    const where = setup();
    const first = await startManager(where);
    const fingerprint = first.manager.status().ca!.fingerprint_sha256;
    const paths = tlsPaths(where.dataDir, where.caKeyDir);
    // The layout older hubs left: the key beside the server key, in the data directory.
    fs.renameSync(paths.caKey, paths.legacyCaKey);
    fs.rmSync(where.caKeyDir, { recursive: true });

    const { manager, log } = await startManager(where);
    expect(manager.status().ca!.fingerprint_sha256).toBe(fingerprint);
    expect(fs.existsSync(paths.legacyCaKey)).toBe(false);
    expect(fs.existsSync(paths.caKey)).toBe(true);
    expect(fs.statSync(where.caKeyDir).mode & 0o777).toBe(0o700);
    expect(log.some((l) => /moved the CA key/.test(l.msg))).toBe(true);
  });

  it('refuses to start, rather than make a new CA that locks out every agent, when the CA key is missing', async () => {
    const where = setup();
    await startManager(where);
    fs.rmSync(where.caKeyDir, { recursive: true });
    const caPem = fs.readFileSync(tlsPaths(where.dataDir, where.caKeyDir).caCert, 'utf8');
    await expect(startManager(where)).rejects.toThrow(/SVC_TLS_CA_KEY_DIR/);
    expect(fs.readFileSync(tlsPaths(where.dataDir, where.caKeyDir).caCert, 'utf8')).toBe(caPem);
    expect(describeCertificate(caPem).is_ca).toBe(true);
  });
});

describe('SVC_TLS_CA_KEY_DIR', () => {
  it('defaults to a sibling of the data directory and refuses a place inside it', () => {
    expect(parseEnv({ SVC_DATA_DIR: '/srv/svc/data' }, '/').tlsCaKeyDir).toBe('/srv/svc/data-ca-key');
    expect(parseEnv({ SVC_TLS_CA_KEY_DIR: 'keys/ca' }, '/srv/svc').tlsCaKeyDir).toBe('/srv/svc/keys/ca');
    for (const inside of ['/srv/svc/data', '/srv/svc/data/tls-private'])
      expect(() => parseEnv({ SVC_DATA_DIR: '/srv/svc/data', SVC_TLS_CA_KEY_DIR: inside }, '/')).toThrow(
        ConfigError,
      );
  });

  it('reads SVC_TLS_CA_NAMES, and stops the start on an entry that cannot be a name constraint', () => {
    expect(parseEnv({ SVC_TLS_CA_NAMES: 'lb.example.lan, 192.0.2.0/24,fd00::9' }, '/').tlsCaNames).toEqual([
      'lb.example.lan',
      '192.0.2.0/24',
      'fd00::9',
    ]);
    expect(parseEnv({}, '/').tlsCaNames).toEqual([]);
    expect(() => parseEnv({ SVC_TLS_CA_NAMES: 'lb.example.lan,10.0.0.0/33' }, '/')).toThrow(
      /SVC_TLS_CA_NAMES: "10\.0\.0\.0\/33" an address range must be address\/prefix/,
    );
  });
});
