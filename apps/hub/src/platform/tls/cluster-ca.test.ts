/**
 * One CA per cluster (decision 0055): processes on one PostgreSQL (SVC_TEST_DATABASE_URL) start their TLS the
 * way the hub does, with the database's record of the cluster's CA. The first records its CA; one without the
 * CA, or with another, is refused with words naming both fingerprints and the files to copy, and writes no CA
 * of its own; a copied CA starts; SVC_TLS_REPLACE_CA replaces the record on purpose. A single SQLite hub
 * records its CA and is never refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgSchema, type PgSchema } from '@svc/testkit';
import { ManualClock } from '../clock.js';
import { openDatabase, type HubDatabase } from '../db/database.js';
import { readSetting } from '../db/key-values.js';
import { silentLogger } from '../logger.js';
import { createSecretBox, type SecretBox } from '../secret-box.js';
import { CertificateProblem, createCertificateAuthority, issueServerCertificate } from './certificates.js';
import { clusterCaRecord, SecondCaRefused } from './cluster-ca.js';
import { TlsManager, type TlsOverride } from './tls-manager.js';
import { tlsPaths } from './tls-files.js';

const url = process.env.SVC_TEST_DATABASE_URL;
const clock = new ManualClock(new Date());
const box: SecretBox = createSecretBox(randomBytes(32));
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cluster-ca-'));

interface Place {
  dataDir: string;
  caKeyDir: string;
}

let count = 0;
function place(): Place {
  count += 1;
  return {
    dataDir: path.join(root, `p${String(count)}`, 'data'),
    caKeyDir: path.join(root, `p${String(count)}`, 'ca-key'),
  };
}

/** Starts TLS in auto mode on `where`, as hub.ts does, against `database`; resolves to the CA fingerprint. */
async function startTls(
  database: HubDatabase,
  where: Place,
  replacingCa: string | null = null,
  override: TlsOverride | null = null,
): Promise<string> {
  const manager = new TlsManager({
    mode: 'auto',
    ...where,
    hostnames: [],
    externalCertFile: null,
    externalKeyFile: null,
    box,
    clock,
    logger: silentLogger,
    loadOverride: () => Promise.resolve(override),
    clusterCa: clusterCaRecord(database.db, { enforced: database.dialect === 'postgres', clock }),
    replacingCa,
  });
  await manager.init();
  const fingerprint = manager.status().ca?.fingerprint_sha256;
  if (!fingerprint) throw new Error('no CA');
  return fingerprint;
}

/** What an operator copies: the CA certificate and the CA key directory. */
function copyCa(from: Place, to: Place): void {
  const source = tlsPaths(from.dataDir, from.caKeyDir);
  const target = tlsPaths(to.dataDir, to.caKeyDir);
  fs.mkdirSync(target.publicDir, { recursive: true });
  fs.copyFileSync(source.caCert, target.caCert);
  fs.cpSync(from.caKeyDir, to.caKeyDir, { recursive: true });
}

async function refusal(start: Promise<unknown>): Promise<SecondCaRefused> {
  const error = await start.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SecondCaRefused);
  expect(error).toBeInstanceOf(CertificateProblem);
  return error as SecondCaRefused;
}

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe.runIf(url)('the cluster CA on PostgreSQL', () => {
  let schema: PgSchema;
  let database: HubDatabase;

  beforeAll(async () => {
    schema = await createPgSchema(url ?? '');
    database = await openDatabase({
      databaseUrl: url ?? '',
      dataDir: place().dataDir,
      pgSchema: schema.schema,
    });
  }, 60_000);

  afterAll(async () => {
    await database.close();
    await schema.drop();
  });

  it('records the first CA, refuses a process without it or with another, and starts one with a copy', async () => {
    const first = place();
    const clusterCa = await startTls(database, first);
    expect(await readSetting(database.db, 'tls.cluster_ca')).toMatchObject({
      fingerprint_sha256: clusterCa,
      ca_cert: tlsPaths(first.dataDir, first.caKeyDir).caCert,
      ca_key_dir: first.caKeyDir,
    });
    // The first process starting again with its CA is the cluster's.
    expect(await startTls(database, first)).toBe(clusterCa);

    // A process without the CA: refused before it makes one, saying what to copy from where to where.
    const bare = place();
    const noCa = await refusal(startTls(database, bare));
    const barePaths = tlsPaths(bare.dataDir, bare.caKeyDir);
    expect(noCa.message).toContain(clusterCa);
    expect(noCa.message).toContain('copy');
    expect(noCa.message).toContain(tlsPaths(first.dataDir, first.caKeyDir).caCert);
    expect(noCa.message).toContain(first.caKeyDir);
    expect(noCa.message).toContain(barePaths.caCert);
    expect(noCa.message).toContain(bare.caKeyDir);
    expect(fs.existsSync(barePaths.caCert)).toBe(false);
    expect(fs.existsSync(barePaths.caKey)).toBe(false);

    // A process with a CA of its own (made on another database): refused, both fingerprints named.
    const other = place();
    const sqlite = await openDatabase({ databaseUrl: null, dataDir: other.dataDir });
    const otherCa = await startTls(sqlite, other);
    await sqlite.close();
    const second = await refusal(startTls(database, other));
    expect(second.message).toContain(otherCa);
    expect(second.message).toContain(clusterCa);
    expect(second.message).toContain('copy');
    expect(await readSetting(database.db, 'tls.cluster_ca')).toMatchObject({ fingerprint_sha256: clusterCa });

    // An uploaded certificate for the listener changes nothing: the built-in CA still signs what agents meet.
    const now = new Date();
    const leaf = await issueServerCertificate(await createCertificateAuthority(now), ['localhost'], now);
    const override: TlsOverride = {
      certPem: leaf.certPem,
      keySealed: box.seal(leaf.keyPem, 'tls:override-key'),
      uploadedAt: now.toISOString(),
      uploadedBy: null,
    };
    await refusal(startTls(database, bare, null, override));

    // With the CA copied as docs/operations.md says, the bare process starts on the cluster's CA.
    copyCa(first, bare);
    expect(await startTls(database, bare)).toBe(clusterCa);
  }, 60_000);

  it('replaces the recorded CA only when SVC_TLS_REPLACE_CA names it', async () => {
    const recorded = (await readSetting(database.db, 'tls.cluster_ca')) as { fingerprint_sha256: string };
    const rotated = place();
    await refusal(startTls(database, rotated, 'AA:'.repeat(31) + 'AA'));
    const newCa = await startTls(database, rotated, recorded.fingerprint_sha256);
    expect(newCa).not.toBe(recorded.fingerprint_sha256);
    expect(await readSetting(database.db, 'tls.cluster_ca')).toMatchObject({ fingerprint_sha256: newCa });
    // Left set after the rotation, it replaces nothing more: another new CA is refused.
    await refusal(startTls(database, place(), recorded.fingerprint_sha256));
  }, 60_000);

  it('lets one of two processes starting together on an empty database make the CA', async () => {
    const fresh = await createPgSchema(url ?? '');
    const pair = [place(), place()];
    const databases = await Promise.all(
      pair.map((p) => openDatabase({ databaseUrl: url ?? '', dataDir: p.dataDir, pgSchema: fresh.schema })),
    );
    try {
      const results = await Promise.allSettled(pair.map((p, i) => startTls(databases[i] as HubDatabase, p)));
      const started = results.filter((r) => r.status === 'fulfilled');
      const refused = results.filter((r) => r.status === 'rejected');
      expect(started).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(SecondCaRefused);
    } finally {
      await Promise.all(databases.map((d) => d.close()));
      await fresh.drop();
    }
  }, 60_000);
});

describe('the CA of a single SQLite hub', () => {
  it('is recorded, and a new one (a rotation) is recorded in its place without a refusal', async () => {
    const where = place();
    const database = await openDatabase({ databaseUrl: null, dataDir: where.dataDir });
    try {
      const first = await startTls(database, where);
      expect(await readSetting(database.db, 'tls.cluster_ca')).toMatchObject({ fingerprint_sha256: first });
      const paths = tlsPaths(where.dataDir, where.caKeyDir);
      fs.rmSync(paths.caCert);
      fs.rmSync(paths.caKey);
      const second = await startTls(database, where);
      expect(second).not.toBe(first);
      expect(await readSetting(database.db, 'tls.cluster_ca')).toMatchObject({ fingerprint_sha256: second });
    } finally {
      await database.close();
    }
  }, 60_000);
});
