/**
 * Decides which certificate the hub serves and keeps it current.
 * Source precedence: an uploaded override, then the deployment's mode (external files or the built-in CA).
 * Changes (renewal, upload, clear) are pushed to listeners, which swap the server's secure context live.
 */
import fs from 'node:fs';
import os from 'node:os';
import type { SecureContextOptions } from 'node:tls';
import type { TlsMode } from '../../config/env.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../secret-box.js';
import {
  CertificateProblem,
  sanOf,
  checkUploadedPair,
  createCertificateAuthority,
  describeCertificate,
  issueServerCertificate,
  nameConstraintsOf,
  needsRenewal,
  renewBeforeDays,
  type CertificateDetails,
  type KeyAndCert,
} from './certificates.js';
import {
  caNameConstraints,
  constraintsBeyond,
  isNamePermitted,
  type NameConstraints,
} from './name-constraints.js';
import { migrateCaKey, readPair, tlsPaths, writePair, type TlsPaths } from './tls-files.js';
import { SecondCaRefused, type ClusterCaRecord } from './cluster-ca.js';
import { loadOrRotateTicketKeys, ticketKeyLifetimeS, type TicketKeys } from './ticket-keys.js';

export type TlsSource = 'builtin' | 'external' | 'uploaded' | 'disabled';

export interface TlsOverride {
  certPem: string;
  keySealed: string;
  uploadedAt: string;
  uploadedBy: string | null;
}

export interface TlsStatus {
  mode: TlsMode;
  source: TlsSource;
  certificate: CertificateDetails | null;
  ca: CertificateDetails | null;
  ca_download: boolean;
  renews_at: string | null;
  override_uploaded_at: string | null;
}

export interface TlsManagerOptions {
  mode: TlsMode;
  dataDir: string;
  /** Where the built-in CA's sealed private key lives, apart from the data directory (SVC_TLS_CA_KEY_DIR). */
  caKeyDir: string;
  hostnames: readonly string[];
  /**
   * What a new built-in CA may certify besides the hub's own names (SVC_TLS_CA_NAMES, decision 0052): a load
   * balancer's or other hub processes' names, an address range. Read only when the CA is made.
   */
  caNames?: readonly string[];
  externalCertFile: string | null;
  externalKeyFile: string | null;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  /** Reads a stored override (the settings table); its key is sealed. */
  loadOverride(): Promise<TlsOverride | null>;
  /**
   * The cluster's recorded CA (decision 0055): a built-in CA that differs from it, or a new one while it names
   * one, refuses the start. Without it (tests of the manager alone) nothing is checked.
   */
  clusterCa?: ClusterCaRecord;
  /** SVC_TLS_REPLACE_CA: the recorded CA this process's new one replaces on purpose (a rotation). */
  replacingCa?: string | null;
}

/**
 * TLS 1.2 and up, forward-secret AEAD suites only, and elliptic-curve key exchange only: OpenSSL's default
 * groups include ffdhe2048…ffdhe8192, and one ffdhe8192 handshake costs the hub ~130 ms of main-thread CPU
 * against ~0.7 ms for X25519, so any unauthenticated client could stall the event loop (D(HE)at).
 */
export const tlsPolicy = {
  minVersion: 'TLSv1.2',
  ecdhCurve: 'X25519:P-256:P-384',
  ciphers: [
    'TLS_AES_128_GCM_SHA256',
    'TLS_AES_256_GCM_SHA384',
    'TLS_CHACHA20_POLY1305_SHA256',
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
  honorCipherOrder: true,
} as const satisfies SecureContextOptions;

/** Host names and addresses for the built-in certificate: configured ones, this host, loopback, interfaces. */
function defaultServerNames(configured: readonly string[]): string[] {
  const addresses = Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfo => a !== undefined && !a.address.startsWith('fe80'))
    .map((a) => a.address);
  return [...new Set([...configured, os.hostname(), 'localhost', '127.0.0.1', '::1', ...addresses])];
}

const caKeyContext = 'tls:ca-key';
const serverKeyContext = 'tls:server-key';
const overrideKeyContext = 'tls:override-key';

export class TlsManager {
  private active: KeyAndCert | null = null;
  private source: TlsSource = 'disabled';
  private startupSource: TlsSource = 'disabled';
  private ca: KeyAndCert | null = null;
  private override: TlsOverride | null = null;
  private readonly listeners: ((pair: KeyAndCert) => void)[] = [];
  private readonly paths: TlsPaths;
  /** The built-in CA's name constraints; null for a CA made without them (it certifies any name). */
  private caConstraints: NameConstraints | null = null;
  /** The session ticket keys, kept across restarts (decision 0072). */
  private ticketKeys: TicketKeys | null = null;

  constructor(private readonly options: TlsManagerOptions) {
    this.paths = tlsPaths(options.dataDir, options.caKeyDir);
  }

  /** Loads or creates the material for the configured mode, then applies a stored override if any. */
  async init(): Promise<void> {
    const { mode } = this.options;
    if (mode === 'disabled') return;
    this.ticketKeys = loadOrRotateTicketKeys(
      this.options.box,
      this.paths,
      this.options.clock.now(),
    ).ticketKeys;
    if (mode === 'external') {
      this.active = this.readExternal();
      this.startupSource = 'external';
    } else {
      this.ca = await this.loadOrCreateCa();
      this.active = await this.loadOrIssueServer(this.ca);
      this.startupSource = 'builtin';
    }
    this.source = this.startupSource;
    const override = await this.options.loadOverride();
    if (override) {
      try {
        this.override = override;
        this.active = {
          certPem: override.certPem,
          keyPem: this.options.box.open(override.keySealed, overrideKeyContext),
        };
        this.source = 'uploaded';
      } catch (error) {
        this.options.logger.error(
          { err: error },
          'the uploaded TLS certificate could not be opened; serving the startup certificate',
        );
        this.override = null;
      }
    }
  }

  get mode(): TlsMode {
    return this.options.mode;
  }

  /** Options for https.createServer / setSecureContext; null when TLS is disabled. */
  secureContext(): SecureContextOptions | null {
    if (!this.active) return null;
    return {
      cert: this.active.certPem,
      key: this.active.keyPem,
      ...tlsPolicy,
      // Tickets a restarted hub still accepts (decision 0072), for as long as the keys that encrypt them.
      ...(this.ticketKeys ? { ticketKeys: this.ticketKeys.keys, sessionTimeout: ticketKeyLifetimeS } : {}),
    };
  }

  /** Replaces the session ticket keys once they are a day old, live. Returns whether it did. */
  rotateTicketKeysIfDue(): boolean {
    if (!this.ticketKeys || !this.active) return false;
    const { ticketKeys, rotated } = loadOrRotateTicketKeys(
      this.options.box,
      this.paths,
      this.options.clock.now(),
      this.ticketKeys,
    );
    if (!rotated) return false;
    this.ticketKeys = ticketKeys;
    this.options.logger.info(
      'replaced the TLS session ticket keys (tickets issued before need a full handshake)',
    );
    this.apply(this.active);
    return true;
  }

  onChange(listener: (pair: KeyAndCert) => void): void {
    this.listeners.push(listener);
  }

  /** The CA certificate, offered only while the hub's own CA signs what it serves. */
  caCertificate(): string | null {
    return this.source === 'builtin' && this.ca ? this.ca.certPem : null;
  }

  status(): TlsStatus {
    const certificate = this.active ? describeCertificate(this.active.certPem) : null;
    const renewsAt =
      this.source === 'builtin' && certificate
        ? new Date(new Date(certificate.not_after).getTime() - renewBeforeDays * 86_400_000).toISOString()
        : null;
    return {
      mode: this.options.mode,
      source: this.source,
      certificate,
      ca: this.ca ? describeCertificate(this.ca.certPem) : null,
      ca_download: this.caCertificate() !== null,
      renews_at: renewsAt,
      override_uploaded_at: this.override?.uploadedAt ?? null,
    };
  }

  /** Renews the built-in server certificate when it is within 30 days of expiry. Returns whether it did. */
  async renewIfDue(): Promise<boolean> {
    if (this.startupSource !== 'builtin' || !this.ca) return false;
    const current = readPair(this.options.box, this.paths.serverCert, this.paths.serverKey, serverKeyContext);
    if (current && !needsRenewal(current.certPem, this.options.clock.now())) return false;
    const renewed = await this.issueServer(this.ca);
    this.options.logger.info(
      { not_after: describeCertificate(renewed.certPem).not_after },
      'renewed the built-in server certificate',
    );
    if (this.source === 'builtin') this.apply(renewed);
    return true;
  }

  /**
   * Checks an uploaded chain and key and seals the key, ready to be stored. Throws CertificateProblem saying
   * what is wrong. Nothing changes until `applyOverride`.
   */
  prepareOverride(
    chainPem: string,
    keyPem: string,
    uploadedBy: string | null,
  ): { override: TlsOverride; pair: KeyAndCert } {
    if (this.options.mode === 'disabled') {
      throw new CertificateProblem(
        'TLS is disabled on this hub: set SVC_TLS_MODE=auto or external and restart first',
      );
    }
    const pair = checkUploadedPair(chainPem, keyPem, this.options.clock.now());
    const override: TlsOverride = {
      certPem: pair.certPem,
      keySealed: this.options.box.seal(pair.keyPem, overrideKeyContext),
      uploadedAt: this.options.clock.now().toISOString(),
      uploadedBy,
    };
    return { override, pair };
  }

  /** Serves a stored override from now on (live, no restart). */
  applyOverride(override: TlsOverride, pair: KeyAndCert): TlsStatus {
    this.override = override;
    this.source = 'uploaded';
    this.apply(pair);
    return this.status();
  }

  /**
   * Serves what the database holds now: another process uploaded or cleared an override (decision 0044).
   * Returns whether what is served changed. An override whose key cannot be opened is logged and left.
   */
  async reloadOverride(): Promise<boolean> {
    if (this.options.mode === 'disabled') return false;
    const stored = await this.options.loadOverride();
    const current = this.override;
    if (stored === null) {
      if (current === null) return false;
      await this.clearOverride();
      return true;
    }
    if (current?.uploadedAt === stored.uploadedAt && current.certPem === stored.certPem) return false;
    let keyPem: string;
    try {
      keyPem = this.options.box.open(stored.keySealed, overrideKeyContext);
    } catch (error) {
      this.options.logger.error(
        { err: error },
        'the uploaded TLS certificate could not be opened; kept serving',
      );
      return false;
    }
    this.applyOverride(stored, { certPem: stored.certPem, keyPem });
    return true;
  }

  /** After the stored override is removed: serves the startup source again. */
  async clearOverride(): Promise<TlsStatus> {
    this.override = null;
    if (this.options.mode === 'disabled') return this.status();
    const startup =
      this.startupSource === 'external'
        ? this.readExternal()
        : await this.loadOrIssueServer(this.ca ?? (await this.loadOrCreateCa()));
    this.source = this.startupSource;
    this.apply(startup);
    return this.status();
  }

  private apply(pair: KeyAndCert): void {
    this.active = pair;
    for (const listener of this.listeners) listener(pair);
  }

  private readExternal(): KeyAndCert {
    const { externalCertFile, externalKeyFile } = this.options;
    if (!externalCertFile || !externalKeyFile) {
      throw new CertificateProblem(
        'SVC_TLS_MODE=external needs SVC_TLS_CERT and SVC_TLS_KEY (paths to PEM files)',
      );
    }
    let chain: string;
    let key: string;
    try {
      chain = fs.readFileSync(externalCertFile, 'utf8');
      key = fs.readFileSync(externalKeyFile, 'utf8');
    } catch (error) {
      throw new CertificateProblem(`cannot read SVC_TLS_CERT/SVC_TLS_KEY: ${(error as Error).message}`);
    }
    return checkUploadedPair(chain, key, this.options.clock.now());
  }

  private async loadOrCreateCa(): Promise<KeyAndCert> {
    this.moveLegacyCaKey();
    const existing = readPair(this.options.box, this.paths.caCert, this.paths.caKey, caKeyContext);
    if (existing) {
      await this.checkClusterCa(existing.certPem);
      this.readCaConstraints(existing.certPem);
      return existing;
    }
    if (fs.existsSync(this.paths.caCert)) {
      // A new CA now would lock out every enrolled agent (they pin this one): say so rather than replace it.
      throw new CertificateProblem(
        `the built-in CA certificate ${this.paths.caCert} is there but its key ${this.paths.caKey} is not: ` +
          'restore SVC_TLS_CA_KEY_DIR (keep it on persistent storage), or move the CA certificate away to make a ' +
          'new CA (every agent must then enroll again with its fingerprint)',
      );
    }
    await this.checkClusterCa(null);
    const constraints = this.wantedConstraints();
    const ca = await createCertificateAuthority(this.options.clock.now(), undefined, constraints);
    writePair(this.options.box, this.paths, this.paths.caCert, this.paths.caKey, ca, caKeyContext);
    await this.checkClusterCa(ca.certPem);
    this.caConstraints = constraints;
    this.options.logger.info(
      {
        ca: this.paths.caCert,
        ca_key_dir: this.paths.caKeyDir,
        permitted_dns: constraints.dns,
        permitted_ip: constraints.ip.map((r) => `${r.address}/${r.prefix}`),
      },
      "created the built-in certificate authority, limited to this hub's names and addresses and SVC_TLS_CA_NAMES",
    );
    return ca;
  }

  /**
   * Records this process's CA as the cluster's, or refuses the start when the database names another
   * (decision 0055). `caPem` null: this process has none yet and is about to make one, refused as soon as the
   * database names a CA (before anything is written). Recorded once the new CA is on disk (a record of a CA
   * that was never written would refuse every later start); a process that started at the same moment and
   * recorded first wins, and this one is refused.
   */
  private async checkClusterCa(caPem: string | null): Promise<void> {
    const record = this.options.clusterCa;
    if (!record) return;
    const here = { caCert: this.paths.caCert, caKeyDir: this.paths.caKeyDir };
    const replacing = this.options.replacingCa ?? null;
    if (caPem === null) {
      const recorded = record.enforced ? await record.read() : null;
      if (recorded && recorded.fingerprint_sha256 !== replacing)
        throw new SecondCaRefused({ ours: null, recorded, here });
      return;
    }
    const ours = describeCertificate(caPem).fingerprint_sha256;
    const recorded = await record.record(
      { fingerprint_sha256: ours, ca_cert: this.paths.caCert, ca_key_dir: this.paths.caKeyDir },
      replacing,
    );
    if (recorded.fingerprint_sha256 !== ours) throw new SecondCaRefused({ ours, recorded, here });
  }

  private moveLegacyCaKey(): void {
    const moved = migrateCaKey(this.paths);
    if (moved === 'moved' || moved === 'removed-duplicate')
      this.options.logger.info(
        { from: this.paths.legacyCaKey, to: this.paths.caKey },
        'moved the CA key out of the data directory',
      );
    if (moved === 'conflict')
      this.options.logger.warn(
        { kept: this.paths.caKey, left: this.paths.legacyCaKey },
        'two different CA keys: the one in SVC_TLS_CA_KEY_DIR is used; remove the old one from the data directory',
      );
  }

  /** What a CA made now may certify: this hub's names and addresses, and SVC_TLS_CA_NAMES (decision 0052). */
  private wantedConstraints(): NameConstraints {
    return caNameConstraints(defaultServerNames(this.options.hostnames), this.options.caNames ?? []);
  }

  /** How to replace the CA; the same words wherever a log line asks for it. */
  private rotation(): string {
    return (
      `stop the hub, move ${this.paths.caCert} and ${this.paths.caKey} away and start again (list in ` +
      'SVC_TLS_CA_NAMES the other names it must sign, e.g. a load balancer), then enroll every agent again with ' +
      'the new CA fingerprint and replace the old CA wherever it was imported (docs/security.md, "Rotating the ' +
      'built-in CA")'
    );
  }

  private readCaConstraints(caPem: string): void {
    const constraints = nameConstraintsOf(caPem);
    this.caConstraints = typeof constraints === 'object' ? constraints : null;
    const beyond =
      constraints && constraints !== 'unreadable'
        ? constraintsBeyond(constraints, this.wantedConstraints())
        : [];
    if (beyond.length > 0)
      this.options.logger.warn(
        { ca: this.paths.caCert, beyond },
        "the built-in CA may sign for more than this hub's names and SVC_TLS_CA_NAMES (made by an older hub, or " +
          'with names since removed): whoever takes its key can make certificates for those names that every ' +
          `client trusting this CA accepts. It keeps working (agents pin it); to narrow it, ${this.rotation()}`,
      );
    if (constraints === null)
      this.options.logger.warn(
        { ca: this.paths.caCert },
        'the built-in CA has no name constraints (made by an older hub): whoever trusts it trusts it for every ' +
          `site. It keeps working; to re-issue it, ${this.rotation()}`,
      );
  }

  /** The names the server certificate should carry that the CA may certify; the rest are logged. */
  private certifiableNames(): string[] {
    const wanted = defaultServerNames(this.options.hostnames);
    const constraints = this.caConstraints;
    if (!constraints) return wanted;
    const outside = wanted.filter((n) => !isNamePermitted(n, constraints));
    if (outside.length > 0)
      this.options.logger.error(
        { outside, ca: this.paths.caCert },
        "these names are outside the built-in CA's name constraints and are left out of the server certificate " +
          `(clients would refuse them). To cover them, re-issue the CA: ${this.rotation()}; ` +
          'or serve a certificate of your own (SVC_TLS_MODE=external, or upload one)',
      );
    return wanted.filter((n) => isNamePermitted(n, constraints));
  }

  private async loadOrIssueServer(ca: KeyAndCert): Promise<KeyAndCert> {
    const existing = readPair(
      this.options.box,
      this.paths.serverCert,
      this.paths.serverKey,
      serverKeyContext,
    );
    const wanted = this.certifiableNames();
    if (existing && !needsRenewal(existing.certPem, this.options.clock.now())) {
      const names = new Set(describeCertificate(existing.certPem).subject_alt_names);
      const covered = wanted.every((n) => names.has(sanOf(n)));
      if (covered) return existing;
    }
    return this.issueServer(ca, wanted);
  }

  private async issueServer(ca: KeyAndCert, names = this.certifiableNames()): Promise<KeyAndCert> {
    const pair = await issueServerCertificate(ca, names, this.options.clock.now());
    writePair(
      this.options.box,
      this.paths,
      this.paths.serverCert,
      this.paths.serverKey,
      pair,
      serverKeyContext,
    );
    return pair;
  }
}

/**
 * A certificate for another server of the same deployment (a load balancer in front of several hub processes,
 * decision 0041), issued by the built-in CA in `dataDir`/`caKeyDir`: agents that pinned the CA trust it. The
 * names must lie within the CA's name constraints. Throws CertificateProblem when there is no built-in CA.
 */
export async function issueFromBuiltInCa(input: {
  dataDir: string;
  caKeyDir: string;
  box: SecretBox;
  names: readonly string[];
  now: Date;
}): Promise<KeyAndCert> {
  const paths = tlsPaths(input.dataDir, input.caKeyDir);
  const ca = readPair(input.box, paths.caCert, paths.caKey, caKeyContext);
  if (!ca)
    throw new CertificateProblem(`no built-in CA at ${paths.caCert} with its key in ${paths.caKeyDir}`);
  const constraints = nameConstraintsOf(ca.certPem);
  if (typeof constraints === 'object' && constraints !== null) {
    const outside = input.names.filter((n) => !isNamePermitted(n, constraints));
    if (outside.length > 0)
      throw new CertificateProblem(
        `outside the built-in CA's name constraints (clients would refuse them): ${outside.join(', ')}. ` +
          "The CA certifies only the hub's names and SVC_TLS_CA_NAMES as they were when it was made: rotate it " +
          'with these names in SVC_TLS_CA_NAMES (docs/security.md, "Rotating the built-in CA"), or use a ' +
          'certificate of your own',
      );
  }
  return issueServerCertificate(ca, input.names, input.now);
}
