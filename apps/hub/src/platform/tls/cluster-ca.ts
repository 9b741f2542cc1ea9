/**
 * The cluster's one built-in CA, recorded in the database (decision 0055). Agents pin the CA at enrollment, so
 * every process of a cluster must sign its server certificate with the same one: the first process to start on
 * an empty database records its CA's fingerprint here, and a process whose CA differs, or that would make a
 * new one while the database names one, refuses to start (tls-manager.ts) instead of serving a certificate
 * that every enrolled agent distrusts. A single process on its own SQLite file records its CA too, and is
 * never refused (no other process can share that database; rotating its CA just records the new one).
 */
import os from 'node:os';
import { insertSettingIfAbsent, readSetting, writeSetting } from '../db/key-values.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../clock.js';
import { CertificateProblem } from './certificates.js';

/** What the database says about the cluster's CA, and where the process that recorded it keeps it. */
interface RecordedCa {
  /** SHA-256 of the CA certificate as agents pin it (`AB:CD:…`). */
  fingerprint_sha256: string;
  /** The host, the CA certificate file and the CA key directory of the process that recorded it. */
  host: string;
  ca_cert: string;
  ca_key_dir: string;
  recorded_at: string;
}

/** How the TLS manager reads and writes the record (the hub gives it one over its database). */
export interface ClusterCaRecord {
  /** Whether a different CA is refused (a shared database) or simply recorded (a single process). */
  readonly enforced: boolean;
  read(): Promise<RecordedCa | null>;
  /**
   * Records `ca` unless another is recorded already (a process starting at the same moment may have won) and
   * returns what is recorded now. With `replacing` (SVC_TLS_REPLACE_CA), a record of that fingerprint is
   * replaced; with `enforced` false, any record is.
   */
  record(ca: Omit<RecordedCa, 'recorded_at' | 'host'>, replacing: string | null): Promise<RecordedCa>;
}

const clusterCaKey = 'tls.cluster_ca';

function isRecordedCa(value: unknown): value is RecordedCa {
  const v = value as Partial<RecordedCa> | null | undefined;
  return (
    typeof v?.fingerprint_sha256 === 'string' &&
    typeof v.host === 'string' &&
    typeof v.ca_cert === 'string' &&
    typeof v.ca_key_dir === 'string' &&
    typeof v.recorded_at === 'string'
  );
}

export function clusterCaRecord(
  db: Kysely<Database>,
  options: { enforced: boolean; clock: Clock },
): ClusterCaRecord {
  return {
    enforced: options.enforced,
    async read() {
      const value = await readSetting(db, clusterCaKey);
      return isRecordedCa(value) ? value : null;
    },
    record(ca, replacing) {
      const fresh: RecordedCa = {
        ...ca,
        host: os.hostname(),
        recorded_at: options.clock.now().toISOString(),
      };
      return db.transaction().execute(async (trx) => {
        // Two processes starting on an empty database at once: the insert of one wins, the other reads it back.
        await insertSettingIfAbsent(trx, clusterCaKey, fresh, new Date(fresh.recorded_at));
        const stored = await readSetting(trx, clusterCaKey);
        const current = isRecordedCa(stored) ? stored : null;
        const replace =
          current === null ||
          current.fingerprint_sha256 === fresh.fingerprint_sha256 ||
          !options.enforced ||
          (replacing !== null && current.fingerprint_sha256 === replacing);
        if (!replace) return current;
        const same =
          current?.fingerprint_sha256 === fresh.fingerprint_sha256 &&
          current.ca_cert === fresh.ca_cert &&
          current.ca_key_dir === fresh.ca_key_dir;
        if (same) return current;
        // The recording process's own paths are only a hint for the refusal's words: the last one to start
        // with this CA names its place, a process that is surely running.
        await writeSetting(trx, clusterCaKey, fresh, options.clock.now());
        return fresh;
      });
    },
  };
}

/** A start refused because this process's CA is not the cluster's: the words say which files to copy where. */
export class SecondCaRefused extends CertificateProblem {
  constructor(input: Parameters<typeof secondCaMessage>[0]) {
    super(secondCaMessage(input));
  }
}

/**
 * The refusal. `ours` is this process's CA fingerprint, or null when it has none and would make one.
 * Names both fingerprints and the files to copy, so an operator can act on the one line.
 */
function secondCaMessage(input: {
  ours: string | null;
  recorded: RecordedCa;
  here: { caCert: string; caKeyDir: string };
}): string {
  const { ours, recorded, here } = input;
  const what =
    ours === null
      ? `this process has no built-in CA (no ${here.caCert}) and would make a new one, but the cluster's ` +
        `database records CA ${recorded.fingerprint_sha256}`
      : `this process's built-in CA ${ours} (${here.caCert}) is not the cluster's CA ` +
        `${recorded.fingerprint_sha256} recorded in the database`;
  return (
    `refusing to start a second CA: ${what} (recorded by host ${recorded.host}). Agents pin the cluster's CA ` +
    'and would refuse this process. To fix it, copy the CA from a running process of the ' +
    `cluster: its CA certificate (${recorded.ca_cert} on ${recorded.host}) to ${here.caCert} here, and the ` +
    `files of its CA key directory (SVC_TLS_CA_KEY_DIR, ${recorded.ca_key_dir} on ${recorded.host}: ` +
    `ca.key.sealed) to ${here.caKeyDir} here, with the same SVC_ENCRYPTION_KEY; then start it again ` +
    '(docs/operations.md, "Running several processes"). To replace the cluster\'s CA on purpose, follow ' +
    `docs/security.md, "Rotating the built-in CA" (SVC_TLS_REPLACE_CA=${recorded.fingerprint_sha256}).`
  );
}
