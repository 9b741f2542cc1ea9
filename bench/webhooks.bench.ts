/**
 * webhooks: deliveries per second from one hub to a local receiver, and the hub API's p99 (`GET
 * /api/v2/assets?per_page=50`) while 10,000 deliveries are queued, as a ratio to the p99 with an empty queue
 * in the same run.
 *
 * In one process: the hub (startTestHub, SQLite, plain HTTP on loopback with the loopback and insecure
 * opt-ins) and a plain node:http receiver. Each queued delivery is also a row of `webhook_pending` (decision
 * 0019), so the figures include that write. Phase 1: `BENCH_WEBHOOKS` (10) webhooks take every event of a
 * burst; the receiver answers at once; deliveries/s = deliveries / time to the last one received. Phase 2:
 * the receiver holds every request of other webhooks (as a hanging receiver would), so 10,000 deliveries stay
 * queued (2 in flight per webhook) while sequential probes, started with the burst, measure the API. Knobs: BENCH_DELIVERIES (10,000),
 * BENCH_PROBE_SECONDS (6), BENCH_WEBHOOKS (10).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../apps/hub/src/platform/clock.js';
import { startTestHub, type TestHub } from '@svc/testkit';
import { percentile } from './lib/fleet.js';
import { jsonClient, type JsonClient } from './lib/https-json.js';
import { writeResult, type Figure } from './lib/report.js';

const deliveries = Math.min(10_000, Math.max(100, Number(process.env.BENCH_DELIVERIES ?? 10_000)));
const webhookCount = Math.min(50, Math.max(1, Number(process.env.BENCH_WEBHOOKS ?? 10)));
const probeSeconds = Math.min(60, Math.max(1, Number(process.env.BENCH_PROBE_SECONDS ?? 6)));
const eventsPerBurst = Math.ceil(deliveries / webhookCount);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sequential probes of the asset list for `seconds` (at most 20,000): their latencies in ms. */
async function probe(client: JsonClient, base: string, key: string, seconds: number): Promise<number[]> {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until && latencies.length < 20_000) {
    const res = await client.request('GET', `${base}/api/v2/assets?per_page=50`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (res.status !== 200)
      throw new Error(`probe answered ${String(res.status)}: ${res.text.slice(0, 200)}`);
    latencies.push(res.ms);
  }
  return latencies;
}

/** Publishes `count` events of `type` in chunks, yielding between them as a busy hub's bus would. */
async function publishBurst(
  t: TestHub,
  type: 'group.created' | 'group.deleted',
  count: number,
): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    t.hub.events.publish(type, { asset_ids: [], group_id: `grp_bench_${String(i)}`, name: `g${String(i)}` });
    if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
  }
}

async function pendingRows(t: TestHub): Promise<number> {
  const row = await t.hub.database.db
    .selectFrom('webhook_pending')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function runWebhooksBench(): Promise<void> {
  let received = 0;
  const held: ServerResponse[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/hold')) {
        held.push(res);
        return;
      }
      received += 1;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverPort = (receiver.address() as AddressInfo).port;

  const t = await startTestHub({
    listen: true,
    clock: new ManualClock(new Date()),
    env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true', SVC_OUTBOUND_ALLOW_INSECURE: 'true' },
  });
  const client = jsonClient();
  const base = `http://127.0.0.1:${String(t.servers?.httpPort ?? 0)}`;
  const figures: Figure[] = [];
  const notes: string[] = [];
  try {
    for (let i = 0; i < 200; i += 1) await t.createAsset({ name: `bench-${String(i).padStart(3, '0')}` });
    const makeHooks = async (path: string, type: string) => {
      for (let i = 0; i < webhookCount; i += 1) {
        const res = await t.request('POST', '/api/v2/webhooks', {
          body: {
            name: `${path}-${String(i)}`,
            url: `http://127.0.0.1:${String(receiverPort)}/${path}/${String(i)}`,
            events: [type],
          },
        });
        if (res.status !== 201) throw new Error(`webhook create: ${String(res.status)} ${res.text}`);
      }
    };
    await makeHooks('fast', 'group.created');
    await makeHooks('hold', 'group.deleted');

    // Phase 1: throughput to a receiver that answers at once.
    const expected = eventsPerBurst * webhookCount;
    const started = performance.now();
    await publishBurst(t, 'group.created', eventsPerBurst);
    for (let i = 0; i < 12_000 && received < expected; i += 1) await sleep(10);
    const seconds = (performance.now() - started) / 1000;
    for (let i = 0; i < 500 && (await pendingRows(t)) > 0; i += 1) await sleep(10);
    figures.push({
      name: `deliveries/s to a local receiver (${String(webhookCount)} webhooks, ${String(expected)} deliveries)`,
      value: (received / seconds).toFixed(0),
    });
    notes.push(`phase 1: ${String(received)} of ${String(expected)} received in ${seconds.toFixed(2)} s`);

    // Phase 2: the API's p99, empty queue first, then with 10,000 held.
    await probe(client, base, t.ownerKey, 1);
    const empty = await probe(client, base, t.ownerKey, probeSeconds);
    // The probes start with the burst: they see the queue filling (rows written), then held full.
    const queueStarted = performance.now();
    const probing = probe(client, base, t.ownerKey, probeSeconds);
    await publishBurst(t, 'group.deleted', eventsPerBurst);
    const queuedMs = performance.now() - queueStarted;
    const loaded = await probing;
    const pendingNow = await pendingRows(t);
    const p99Empty = percentile(empty, 99);
    const p99Loaded = percentile(loaded, 99);
    const ratio = p99Loaded / p99Empty;
    figures.push(
      {
        name: 'GET /api/v2/assets?per_page=50 p99 (p50), empty queue',
        value: `${p99Empty.toFixed(1)} ms (${percentile(empty, 50).toFixed(1)} ms), ${String(empty.length)} requests`,
      },
      {
        name: `the same with ${String(expected)} deliveries queued (receiver holding them)`,
        value: `${p99Loaded.toFixed(1)} ms (${percentile(loaded, 50).toFixed(1)} ms), ${String(loaded.length)} requests; ×${ratio.toFixed(2)}`,
        target: '×≤2',
        met: ratio <= 2,
      },
      {
        name: `time to queue ${String(expected)} deliveries (events published, rows written)`,
        value: `${queuedMs.toFixed(0)} ms to publish; ${String(pendingNow)} rows pending after the probes`,
      },
    );
    process.stdout.write(`${JSON.stringify({ figures })}\n`);
  } finally {
    client.close();
    for (const res of held) res.destroy();
    await t.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => {
      receiver.close(() => {
        resolve();
      });
    });
  }
  writeResult({
    benchmark: 'webhooks',
    command: 'npm run bench -- webhooks',
    summary:
      'Webhook deliveries from one in-process hub (SQLite) to a local node:http receiver, each queued delivery ' +
      'kept as a row until it finishes; then the API p99 while 10,000 deliveries are queued to a receiver ' +
      'that holds them, against the p99 with an empty queue in the same run (see bench/webhooks.bench.ts).',
    figures,
    notes,
  });
}
