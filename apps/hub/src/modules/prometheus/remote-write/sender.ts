/**
 * The remote-write sender (decision 0075): on the one process holding its lease, every few seconds, it reads
 * the stored samples after its position (stamped at least `readLagMs` ago, so batches still being written are
 * not skipped), sends them in requests of `rowsPerRequest` stored samples, and keeps its position and status
 * in the settings table, so another process taking the lease over goes on from there.
 *
 * Bounds: at most `requestsPerPass` requests a pass; the backlog (stored, unsent) is kept under the configured
 * `max_backlog_samples` by skipping the oldest, counted as dropped. A 2xx moves on; a 4xx other than 429 drops
 * the batch (the receiver will never take it) and moves on; a 429, a 5xx or no answer keeps the position and
 * backs off, doubling up to `maxBackoffMs`.
 */
import type { Kysely } from 'kysely';
import type { RemoteWriteStatus } from '@svc/protocol';
import { outboundTlsOf } from '../../../connectors/base/connector-tls.js';
import type { Clock } from '../../../platform/clock.js';
import type { Database } from '../../../platform/db/schema.js';
import type { Logger } from '../../../platform/logger.js';
import type { LiveOutbound } from '../../../platform/outbound/live-policy.js';
import { findOutboundRefused } from '../../../platform/outbound/outbound-refused.js';
import type { SecretBox } from '../../../platform/secret-box.js';
import type { AssetService } from '../../assets/assets.service.js';
import type { MetricPosition, MetricsExportService } from '../../metrics/metrics-export.service.js';
import {
  emptyStatus,
  readRemoteWrite,
  readSenderState,
  remoteWriteCredentialsContext,
  writeSenderState,
  type SenderState,
  type StoredRemoteWrite,
} from '../prometheus-config.js';
import { seriesOf } from './series.js';
import { snappyEncode } from './snappy.js';
import { encodeWriteRequest } from './write-request.js';

export interface RemoteWriteOptions {
  /** Between passes (default 5 s); 0 leaves passes to `sendNow()` (tests). */
  intervalMs: number;
  /** Samples stamped later than now minus this are left for a later pass (default 15 s). */
  readLagMs: number;
  /** Stored samples in one request (each is 8 Prometheus samples; default 250). */
  rowsPerRequest: number;
  requestsPerPass: number;
  /** A request's whole time (default 30 s). */
  timeoutMs: number;
  maxBackoffMs: number;
  /** A new configuration sends samples stamped from this long before it (default 5 minutes). */
  startLookbackMs: number;
}

const defaults: RemoteWriteOptions = {
  intervalMs: 5_000,
  readLagMs: 15_000,
  rowsPerRequest: 250,
  requestsPerPass: 20,
  timeoutMs: 30_000,
  maxBackoffMs: 5 * 60_000,
  startLookbackMs: 5 * 60_000,
};

/** What a receiver's error body is read up to, for the status. */
const errorBodyBytes = 512;

export interface RemoteWriteSender {
  /** One pass now (whatever the backoff), if this process holds the lease and remote write is enabled. */
  sendNow(): Promise<void>;
  start(): void;
  close(): Promise<void>;
}

export interface RemoteWriteSenderDeps {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  box: SecretBox;
  outbound: LiveOutbound;
  metrics: MetricsExportService;
  assets: Pick<AssetService, 'names'>;
  runsHere: () => boolean;
  options?: Partial<RemoteWriteOptions>;
}

type Outcome = { kind: 'sent' } | { kind: 'refused'; message: string } | { kind: 'retry'; message: string };

async function readErrorBody(body: AsyncIterable<Uint8Array> & { destroy?: () => void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(Buffer.from(chunk));
    size += chunk.length;
    if (size >= errorBodyBytes) break;
  }
  return Buffer.concat(chunks)
    .subarray(0, errorBodyBytes)
    .toString('utf8')
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim();
}

function authHeader(config: StoredRemoteWrite, box: SecretBox): Record<string, string> {
  if (config.auth === 'none' || config.credentials_sealed === null) return {};
  const secret = box.open(config.credentials_sealed, remoteWriteCredentialsContext);
  if (config.auth === 'bearer') return { authorization: `Bearer ${secret}` };
  const pair = `${config.username ?? ''}:${secret}`;
  return { authorization: `Basic ${Buffer.from(pair, 'utf8').toString('base64')}` };
}

export function createRemoteWriteSender(deps: RemoteWriteSenderDeps): RemoteWriteSender {
  const { db, clock, logger, box, metrics, assets } = deps;
  const options = { ...defaults, ...deps.options };
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let failures = 0;
  let retryAt = 0;
  let closed = false;
  // The client of the configuration's TLS choice, made again when the configuration changes.
  let client: { configAt: string; outbound: LiveOutbound; own: boolean } | null = null;

  function outboundFor(config: StoredRemoteWrite): LiveOutbound {
    if (client?.configAt === config.revision) return client.outbound;
    if (client?.own === true) void client.outbound.close();
    const tls = outboundTlsOf({
      mode: config.tls_mode,
      ca: config.tls_ca,
      fingerprint: config.tls_fingerprint,
    });
    const own = tls.ca !== undefined || tls.tls !== undefined;
    client = { configAt: config.revision, outbound: own ? deps.outbound.derive(tls) : deps.outbound, own };
    return client.outbound;
  }

  async function post(config: StoredRemoteWrite, body: Uint8Array): Promise<Outcome> {
    try {
      const response = await outboundFor(config)
        .client()
        .request(config.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-protobuf',
            'content-encoding': 'snappy',
            'x-prometheus-remote-write-version': '0.1.0',
            'user-agent': 'svc-hub',
            ...authHeader(config, box),
          },
          body,
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      if (response.status >= 200 && response.status < 300) {
        await response.body.dump();
        return { kind: 'sent' };
      }
      const text = await readErrorBody(response.body);
      const message = `the receiver answered ${String(response.status)}${text === '' ? '' : `: ${text}`}`;
      if (response.status === 429 || response.status >= 500) return { kind: 'retry', message };
      return { kind: 'refused', message };
    } catch (error) {
      const refused = findOutboundRefused(error);
      if (refused) return { kind: 'retry', message: `refused by the egress guard: ${refused.message}` };
      const message = error instanceof Error ? error.message : String(error);
      return { kind: 'retry', message: `no answer from the receiver: ${message}` };
    }
  }

  function freshState(config: StoredRemoteWrite): SenderState {
    const from = new Date(Date.parse(config.updated_at) - options.startLookbackMs).toISOString();
    return { config_at: config.revision, position: { ts: from, assetId: '' }, status: emptyStatus() };
  }

  async function pass(): Promise<void> {
    if (!deps.runsHere()) return;
    const config = await readRemoteWrite(db);
    if (config === null || !config.enabled) return;
    const stored = await readSenderState(db);
    const state = stored !== null && stored.config_at === config.revision ? stored : freshState(config);
    const status: RemoteWriteStatus = { ...state.status };
    let position: MetricPosition | null = state.position;
    const now = clock.now();
    const until = new Date(now.getTime() - options.readLagMs).toISOString();
    const max = config.max_backlog_samples;

    // The backlog bound: the oldest beyond it are skipped (at most `max` of them a pass).
    const waiting = await metrics.countAfter(position, until, max * 2);
    if (waiting > max) {
      const skip = waiting - max;
      const last = await metrics.positionAt(position, until, skip - 1);
      if (last !== undefined) {
        position = last;
        status.dropped_samples += skip;
        status.sent_through = last.ts;
      }
    }

    let failed = false;
    for (let request = 0; request < options.requestsPerPass && !closed; request++) {
      const rows = await metrics.after(position, until, options.rowsPerRequest);
      const last = rows.at(-1);
      if (last === undefined) break;
      const names = await assets.names([...new Set(rows.map((r) => r.asset_id))]);
      const body = snappyEncode(encodeWriteRequest(seriesOf(rows, names)));
      const outcome = await post(config, body);
      const at = clock.now().toISOString();
      if (outcome.kind === 'retry') {
        failed = true;
        status.failed_requests += 1;
        status.last_error = outcome.message;
        status.last_error_at = at;
        failures += 1;
        retryAt = Date.now() + Math.min(options.maxBackoffMs, options.intervalMs * 2 ** failures);
        break;
      }
      failures = 0;
      retryAt = 0;
      position = { ts: last.ts, assetId: last.asset_id };
      status.sent_through = last.ts;
      if (outcome.kind === 'sent') {
        status.sent_samples += rows.length;
        status.last_success_at = at;
      } else {
        failed = true;
        status.failed_requests += 1;
        status.dropped_samples += rows.length;
        status.last_error = `${outcome.message} (the batch was dropped)`;
        status.last_error_at = at;
      }
    }

    const backlog = await metrics.countAfter(position, until, max + 1);
    status.backlog_samples = Math.min(backlog, max);
    status.backlog_capped = backlog > max;
    status.keeping_up = !failed && backlog <= options.rowsPerRequest;
    status.updated_at = clock.now().toISOString();
    // A configuration changed or removed meanwhile starts afresh: this pass's state is not its.
    const current = await readRemoteWrite(db);
    if (current?.revision !== config.revision) return;
    await writeSenderState(db, { config_at: config.revision, position, status }, clock.now());
  }

  function runPass(): Promise<void> {
    running ??= pass()
      .catch((error: unknown) => {
        logger.error({ err: error }, 'prometheus remote write pass failed');
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  return {
    async sendNow() {
      // A pass already under way may have read before what the caller waits for: one more after it.
      if (running) await running;
      await runPass();
    },
    start() {
      if (options.intervalMs <= 0) return;
      timer = setInterval(() => {
        if (Date.now() < retryAt) return;
        void runPass();
      }, options.intervalMs);
      timer.unref();
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await running;
      if (client?.own === true) await client.outbound.close();
    },
  };
}
