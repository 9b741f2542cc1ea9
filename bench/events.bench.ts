/**
 * events: N event-stream subscribers (1, 100, 1,000) on one hub, receiving presence- and exec-like events the
 * hub's bus publishes at a steady rate: events delivered per second (all subscribers together), p99 delivery
 * latency (publish to a subscriber's 'message'), the hub's RSS; then the same with one subscriber that stops
 * reading, and the ratio of the others' p99 to the run without it.
 *
 * In one process: the hub (startTestHub, SQLite, plain HTTP on loopback, owner key) and the `ws` clients share
 * the event loop, so latencies include the clients' own parsing; the figures compare runs of this bench, not
 * a hub alone. Knobs: BENCH_MAX_SUBSCRIBERS (default 1,000), BENCH_EVENTS (events per run, default 2,000),
 * BENCH_RATE (events per second, default 1,000).
 */
import WebSocket from 'ws';
import { ManualClock } from '../apps/hub/src/platform/clock.js';
import { startTestHub, type TestHub } from '@svc/testkit';
import { percentile } from './lib/fleet.js';
import { writeResult, type Figure } from './lib/report.js';

const maxSubscribers = Math.min(1000, Math.max(1, Number(process.env.BENCH_MAX_SUBSCRIBERS ?? 1000)));
const sizes = [...new Set([1, 100, 1000].filter((n) => n <= maxSubscribers).concat(maxSubscribers))].sort(
  (a, b) => a - b,
);
const eventCount = Math.max(100, Number(process.env.BENCH_EVENTS ?? 2000));
const rate = Math.max(10, Number(process.env.BENCH_RATE ?? 1000));

interface RunFigures {
  delivered: number;
  seconds: number;
  p99Ms: number;
  p50Ms: number;
  rssMiB: number;
  dropped: number;
}

async function connect(port: number, key: string, types: string): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v2/events/stream?types=${types}`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      resolve();
    });
    ws.once('error', reject);
  });
  return ws;
}

async function run(t: TestHub, subscribers: number, withSlow: boolean): Promise<RunFigures> {
  const port = t.servers?.httpPort ?? 0;
  const published = new Map<string, number>();
  const latencies: number[] = [];
  let delivered = 0;
  const clients: WebSocket[] = [];
  for (let i = 0; i < subscribers; i += 1) {
    const ws = await connect(port, t.ownerKey, 'asset.online,exec.completed');
    ws.on('message', (data: Buffer) => {
      const { id } = JSON.parse(data.toString('utf8')) as { id: string };
      const at = published.get(id);
      if (at !== undefined) latencies.push(performance.now() - at);
      delivered += 1;
    });
    clients.push(ws);
  }
  // The stalled one also takes large heartbeats the others do not ask for, so its socket fills within the run
  // (loopback's kernel buffers hold several MB a paused reader never drains).
  const slow = withSlow
    ? await connect(port, t.ownerKey, 'asset.online,exec.completed,heartbeat.update')
    : null;
  const bulkIds = Array.from({ length: 2000 }, (_, i) => `ast_${String(i).padStart(26, '0')}`);
  slow?.pause();
  const droppedBefore = t.hub.eventStream.droppedCount();
  const assetIds = Array.from({ length: 50 }, (_, i) => `ast_${String(i).padStart(26, '0')}`);
  const started = performance.now();
  const perTick = Math.max(1, Math.round(rate / 100));
  for (let sent = 0; sent < eventCount;) {
    for (let i = 0; i < perTick && sent < eventCount; i += 1, sent += 1) {
      const event =
        sent % 2 === 0
          ? t.hub.events.publish('asset.online', {
              asset_ids: assetIds,
              asset_id: `ast_${sent}`,
              name: 'node',
            })
          : t.hub.events.publish('exec.completed', {
              asset_ids: assetIds,
              asset_id: `ast_${sent}`,
              status: 'completed',
              exit_code: 0,
              duration_ms: 12,
              truncated: false,
            });
      published.set(event.id, performance.now());
    }
    if (slow && slow.readyState === WebSocket.OPEN) {
      t.hub.events.publish('heartbeat.update', { asset_ids: bulkIds, asset_id: 'ast_bulk' });
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const expected = eventCount * subscribers;
  for (let i = 0; i < 3000 && delivered < expected; i += 1) await new Promise((r) => setTimeout(r, 10));
  const seconds = (performance.now() - started) / 1000;
  const rssMiB = process.memoryUsage().rss / 2 ** 20;
  const dropped = t.hub.eventStream.droppedCount() - droppedBefore;
  for (const ws of clients) ws.terminate();
  slow?.terminate();
  for (let i = 0; i < 500 && t.hub.eventStream.clientCount() > 0; i += 1) {
    await new Promise((r) => setTimeout(r, 10));
  }
  latencies.sort((a, b) => a - b);
  return {
    delivered,
    seconds,
    p99Ms: percentile(latencies, 99),
    p50Ms: percentile(latencies, 50),
    rssMiB,
    dropped,
  };
}

export async function runEventsBench(): Promise<void> {
  const t = await startTestHub({
    listen: true,
    clock: new ManualClock(new Date()),
    // A small byte budget so the stalled subscriber is dropped within the run, as a slow reader would be.
    eventStream: { queuedBytes: 256 * 1024 },
  });
  const figures: Figure[] = [];
  const notes: string[] = [];
  try {
    for (const n of sizes) {
      const plain = await run(t, n, false);
      const slowed = await run(t, n, true);
      const ratio = plain.p99Ms > 0 ? slowed.p99Ms / plain.p99Ms : 1;
      figures.push(
        { name: `${n} subscribers: events/s delivered`, value: (plain.delivered / plain.seconds).toFixed(0) },
        {
          name: `${n} subscribers: p99 (p50) delivery latency`,
          value: `${plain.p99Ms.toFixed(1)} ms (${plain.p50Ms.toFixed(1)} ms)`,
        },
        {
          name: `${n} subscribers: RSS (hub and clients, one process)`,
          value: `${plain.rssMiB.toFixed(0)} MiB`,
        },
        {
          name: `${n} subscribers + 1 stalled: p99 of the others, ratio to without`,
          value: `${slowed.p99Ms.toFixed(1)} ms, ×${ratio.toFixed(2)}; stalled one dropped (4008): ${slowed.dropped}`,
          target: '×≤1.5, dropped 1',
          met: ratio <= 1.5 && slowed.dropped === 1,
        },
      );
      notes.push(
        `${n} subscribers: ${plain.delivered} of ${eventCount * n} messages delivered without the stalled one, ${slowed.delivered} with it`,
      );
      process.stdout.write(`${n}: ${JSON.stringify({ plain, slowed })}\n`);
    }
  } finally {
    await t.close();
  }
  writeResult({
    benchmark: 'events',
    command: 'npm run bench -- events',
    summary:
      `Event-stream subscribers on one hub receiving ${eventCount} presence and exec events published at ` +
      `${rate}/s (50 asset ids each), with and without one subscriber that stops reading. Hub and clients ` +
      'share one process (see bench/events.bench.ts).',
    figures,
    notes,
  });
}
