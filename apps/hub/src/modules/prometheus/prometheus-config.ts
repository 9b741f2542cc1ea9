/**
 * What the Prometheus integration keeps in the settings table (platform/db/key-values.ts), each under its own
 * key: the exporter ports of the discovery targets, the remote-write configuration (credentials sealed), and
 * the sender's state (its position in the stored samples and its status), written by the process that sends.
 * Values that no longer match their schema read as absent.
 */
import {
  PrometheusExporter,
  RemoteWriteConfig,
  RemoteWriteStatus,
  prometheusLimits,
  type RemoteWriteConfig as RemoteWriteConfigType,
  type RemoteWriteStatus as RemoteWriteStatusType,
} from '@svc/protocol';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { deleteSetting, readSetting, writeSetting } from '../../platform/db/key-values.js';
import type { Executor } from '../../platform/db/schema.js';

const exporterKey = 'prometheus.exporter';
const remoteWriteKey = 'prometheus.remote_write';
const stateKey = 'prometheus.remote_write_state';

/** The sealed credentials' context: a value copied to another key does not open. */
export const remoteWriteCredentialsContext = 'prometheus:remote_write';

const { credentials_set: _shown, ...storedFields } = RemoteWriteConfig.properties;
const StoredRemoteWrite = Type.Object({
  ...storedFields,
  credentials_sealed: Type.Union([Type.String(), Type.Null()]),
  /** A new one at every change: the sender's position and status belong to one revision. */
  revision: Type.String(),
});
export type StoredRemoteWrite = Static<typeof StoredRemoteWrite>;

const SenderState = Type.Object({
  /** The configuration revision the position belongs to (a changed one starts from its own time). */
  config_at: Type.String(),
  position: Type.Union([Type.Object({ ts: Type.String(), assetId: Type.String() }), Type.Null()]),
  status: RemoteWriteStatus,
});
export type SenderState = Static<typeof SenderState>;

const defaultExporter: PrometheusExporter = {
  default_port: prometheusLimits.defaultExporterPort,
  group_ports: [],
};

export async function readExporter(db: Executor): Promise<PrometheusExporter> {
  const value = await readSetting(db, exporterKey);
  return Value.Check(PrometheusExporter, value) ? value : defaultExporter;
}

export async function writeExporter(db: Executor, value: PrometheusExporter, now: Date): Promise<void> {
  await writeSetting(db, exporterKey, value, now);
}

export async function readRemoteWrite(db: Executor): Promise<StoredRemoteWrite | null> {
  const value = await readSetting(db, remoteWriteKey);
  return Value.Check(StoredRemoteWrite, value) ? value : null;
}

export async function writeRemoteWrite(db: Executor, value: StoredRemoteWrite, now: Date): Promise<void> {
  await writeSetting(db, remoteWriteKey, value, now);
}

export async function removeRemoteWrite(db: Executor): Promise<void> {
  await deleteSetting(db, remoteWriteKey);
  await deleteSetting(db, stateKey);
}

export function presentRemoteWrite(stored: StoredRemoteWrite): RemoteWriteConfigType {
  const { credentials_sealed: sealed, revision: _revision, ...rest } = stored;
  return { ...rest, credentials_set: sealed !== null };
}

export async function readSenderState(db: Executor): Promise<SenderState | null> {
  const value = await readSetting(db, stateKey);
  return Value.Check(SenderState, value) ? value : null;
}

export async function writeSenderState(db: Executor, state: SenderState, now: Date): Promise<void> {
  await writeSetting(db, stateKey, state, now);
}

export function emptyStatus(): RemoteWriteStatusType {
  return {
    keeping_up: false,
    backlog_samples: 0,
    backlog_capped: false,
    sent_samples: 0,
    dropped_samples: 0,
    failed_requests: 0,
    sent_through: null,
    last_success_at: null,
    last_error: null,
    last_error_at: null,
    updated_at: null,
  };
}
