/**
 * events: N event-stream subscribers (1, 100, 1,000) on one hub, receiving presence- and exec-like events the
 * hub's bus publishes at a steady rate: events delivered per second (all subscribers together) and published
 * per second, p99 delivery latency (from when an event was due to a subscriber's reading it), the hub's RSS and
 * the CPU of both processes; then the same with one subscriber that stops reading, and the ratio of the
 * others' p99 to the run without it.
 *
 * The hub (startTestHub, SQLite, plain HTTP on loopback, owner key) runs in this process; the clients run in a
 * child process (bench/lib/event-clients.ts): plain sockets that walk the frames and read the ids of about 100
 * clients' messages, so the figures are the hub's and not the clients' parsing. Events are due on a fixed
 * schedule (ticks of 10 ms); a tick the hub's own work delays is published late and its latency counts from
 * when it was due. Latency is measured on CLOCK_MONOTONIC (process.hrtime), which both processes share.
 * Knobs: BENCH_MAX_SUBSCRIBERS (default 1,000), BENCH_SIZES (comma-separated sizes, instead of 1, 100 and the
 * maximum), BENCH_EVENTS (events per run, default 2,000), BENCH_RATE (events per second, default 1,000),
 * BENCH_REPEATS (runs of each, default 3, at least 5 up to 100 subscribers; the one with the median p99 is
 * reported), BENCH_DEFLATE (0: clients
 * that do not offer permessage-deflate; by default they offer it, as browsers and `ws` do, and the hub sends
 * them each event compressed once, decision 0100).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../apps/hub/src/platform/clock.js';
import { startTestHub, type TestHub } from '@svc/testkit';
import { cpuSecondsOf } from './lib/proc-stats.js';
import { repoRoot, writeResult, type Figure } from './lib/report.js';

const maxSubscribers = Math.min(1000, Math.max(1, Number(process.env.BENCH_MAX_SUBSCRIBERS ?? 1000)));
/** BENCH_SIZES (comma-separated) runs only those sizes, for a profile or a trial of one size. */
const sizes = (
  process.env.BENCH_SIZES
    ? process.env.BENCH_SIZES.split(',').map((n) => Math.min(1000, Math.max(1, Math.round(Number(n)))))
    : [...new Set([1, 100, 1000].filter((n) => n <= maxSubscribers).concat(maxSubscribers))]
).sort((a, b) => a - b);
const eventCount = Math.max(100, Number(process.env.BENCH_EVENTS ?? 2000));
const rate = Math.max(10, Number(process.env.BENCH_RATE ?? 1000));
const repeats = Math.max(1, Math.round(Number(process.env.BENCH_REPEATS ?? 3)));
const deflate = process.env.BENCH_DEFLATE !== '0';

interface RunFigures {
  delivered: number;
  seconds: number;
  p99Ms: number;
  p50Ms: number;
  rssMiB: number;
  dropped: number;
  outOfOrder: number;
  /** Events published per second, from the first tick to the last publish (the bench's rate when kept up). */
  publishRate: number;
  /** CPU time (user + system) over the run's wall time: the hub's process, the clients' process. */
  hubCpuShare: number;
  clientsCpuShare: number;
}

interface ClientsResult {
  op: 'result';
  delivered: number;
  p50Ms: number;
  p99Ms: number;
  outOfOrder: number;
  malformed: number;
}

/** The subscribers' process, and a way to send it a command and wait for its answer. */
interface Clients {
  child: ChildProcess;
  ask<T>(command: Record<string, unknown>, answer: string): Promise<T>;
}

function startClients(): Promise<Clients> {
  const child = fork(path.join(repoRoot, 'bench/lib/event-clients.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(command: Record<string, unknown>, answer: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (message: { op: string }) => {
        if (message.op !== answer) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message as T);
      };
      const onExit = (code: number | null) => {
        reject(new Error(`the event clients exited (${code})`));
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      if (Object.keys(command).length > 0) child.send(command);
    });
  return ask({}, 'ready').then(() => ({ child, ask }));
}

const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

async function run(
  t: TestHub,
  clients: Clients,
  subscribers: number,
  withSlow: boolean,
  eventCount: number,
): Promise<RunFigures> {
  const url = `ws://127.0.0.1:${t.servers?.httpPort ?? 0}/api/v2/events/stream`;
  await clients.ask(
    {
      op: 'open',
      url,
      key: t.ownerKey,
      count: subscribers,
      types: 'asset.online,exec.completed',
      paused: false,
      deflate,
    },
    'opened',
  );
  // The stalled one also takes large heartbeats the others do not ask for, so its socket fills within the run
  // (loopback's kernel buffers hold several MB a paused reader never drains); they stop once it is dropped.
  if (withSlow) {
    await clients.ask(
      {
        op: 'open',
        url,
        key: t.ownerKey,
        count: 1,
        types: 'asset.online,exec.completed,heartbeat.update',
        paused: true,
        deflate,
      },
      'opened',
    );
  }
  // Random, so they fill its socket compressed too (padded numbers deflate to almost nothing).
  const bulkIds = Array.from({ length: 2000 }, () => `ast_${randomBytes(13).toString('hex')}`);
  const droppedBefore = t.hub.eventStream.droppedCount();
  const assetIds = Array.from({ length: 50 }, (_, i) => `ast_${String(i).padStart(26, '0')}`);
  const started = performance.now();
  const hubCpuBefore = process.cpuUsage();
  const clientsCpuBefore = cpuSecondsOf(clients.child.pid ?? 0);
  // Ticks of 10 ms, each due at a fixed time from the start: a tick the hub's work delays is published late and
  // its events' latency counts from when they were due (as events from agents would wait in the hub's sockets),
  // so a busy hub cannot slow the rate down to what it keeps up with.
  const tickMs = 10;
  const perTick = Math.max(1, Math.round((rate * tickMs) / 1000));
  const startedMs = nowMs();
  let lastPublishMs = startedMs;
  for (let sent = 0, tick = 0; sent < eventCount; tick += 1) {
    const due = startedMs + tick * tickMs;
    const wait = due - nowMs();
    // One tick per turn of the event loop, as the hub reads events from its sockets: a late tick is followed at
    // once by the next one due, with the hub's own work (its flushes) between them.
    await new Promise((resolve) => (wait > 0 ? setTimeout(resolve, wait) : setImmediate(resolve)));
    const ids: string[] = [];
    const at: number[] = [];
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
      ids.push(event.id);
      at.push(due);
    }
    lastPublishMs = nowMs();
    clients.child.send({ op: 'published', ids, at });
    if (withSlow && t.hub.eventStream.droppedCount() === droppedBefore) {
      t.hub.events.publish('heartbeat.update', { asset_ids: bulkIds, asset_id: 'ast_bulk' });
    }
  }
  const publishRate = eventCount / Math.max(0.001, (lastPublishMs - startedMs + tickMs) / 1000);
  const result = await clients.ask<ClientsResult>(
    { op: 'finish', expected: eventCount * subscribers, timeoutMs: 30_000 },
    'result',
  );
  const seconds = (performance.now() - started) / 1000;
  const hubCpu = process.cpuUsage(hubCpuBefore);
  const hubCpuShare = (hubCpu.user + hubCpu.system) / 1e6 / seconds;
  const clientsCpuShare = (cpuSecondsOf(clients.child.pid ?? 0) - clientsCpuBefore) / seconds;
  const rssMiB = process.memoryUsage().rss / 2 ** 20;
  const dropped = t.hub.eventStream.droppedCount() - droppedBefore;
  for (let i = 0; i < 500 && t.hub.eventStream.clientCount() > 0; i += 1) {
    await new Promise((r) => setTimeout(r, 10));
  }
  if (result.malformed > 0) throw new Error(`${result.malformed} messages did not start with their id`);
  return {
    delivered: result.delivered,
    seconds,
    p99Ms: result.p99Ms,
    p50Ms: result.p50Ms,
    rssMiB,
    dropped,
    outOfOrder: result.outOfOrder,
    publishRate,
    hubCpuShare,
    clientsCpuShare,
  };
}

/** The run with the median p99. */
function median(runs: readonly RunFigures[]): RunFigures {
  const sorted = [...runs].sort((a, b) => a.p99Ms - b.p99Ms);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!middle) throw new Error('no runs');
  return middle;
}

export async function runEventsBench(): Promise<void> {
  const t = await startTestHub({
    listen: true,
    clock: new ManualClock(new Date()),
    // A small byte budget so the stalled subscriber is dropped within the run, as a slow reader would be.
    eventStream: { queuedBytes: 256 * 1024 },
  });
  const clients = await startClients();
  const figures: Figure[] = [];
  const notes: string[] = [];
  const loadBefore = os.loadavg()[0] ?? 0;
  try {
    // A short run first, not reported, so the first size's figures do not include warming up (JIT, buffers).
    await run(t, clients, 10, false, Math.min(eventCount, 500));
    for (const n of sizes) {
      // Each run several times, alternating, and the one with the median p99 reported: on a shared machine a
      // single run's p99 is often another process's doing.
      const plains: RunFigures[] = [];
      const sloweds: RunFigures[] = [];
      // The small sizes' p99 is a few milliseconds, within another process's time slice on a shared machine:
      // more runs there (they are short), so the median is not one busy moment.
      const runs = n <= 100 ? Math.max(repeats, 5) : repeats;
      for (let i = 0; i < runs; i += 1) {
        plains.push(await run(t, clients, n, false, eventCount));
        sloweds.push(await run(t, clients, n, true, eventCount));
      }
      const plain = median(plains);
      const slowed = median(sloweds);
      const ratio = plain.p99Ms > 0 ? slowed.p99Ms / plain.p99Ms : 1;
      figures.push(
        {
          name: `${n} subscribers: events/s delivered (events/s published)`,
          value: `${(plain.delivered / plain.seconds).toFixed(0)} (${plain.publishRate.toFixed(0)})`,
        },
        {
          name: `${n} subscribers: p99 (p50) delivery latency`,
          value: `${plain.p99Ms.toFixed(1)} ms (${plain.p50Ms.toFixed(1)} ms)`,
          // Issue 31's target, at 1,000 subscribers and 1,000 events/s.
          ...(n === 1000 && rate === 1000 ? { target: 'p99 ≤ 100 ms', met: plain.p99Ms <= 100 } : {}),
        },
        {
          name: `${n} subscribers: RSS of the hub's process`,
          value: `${plain.rssMiB.toFixed(0)} MiB`,
        },
        {
          name: `${n} subscribers: CPU of the hub's process (of the clients')`,
          value: `${(plain.hubCpuShare * 100).toFixed(0)}% (${(plain.clientsCpuShare * 100).toFixed(0)}%) of a core`,
        },
        {
          name: `${n} subscribers + 1 stalled: p99 of the others, ratio to without`,
          value: `${slowed.p99Ms.toFixed(1)} ms, ×${ratio.toFixed(2)}; stalled one dropped (4008): ${slowed.dropped}`,
          target: '×≤1.5, dropped 1',
          met: ratio <= 1.5 && slowed.dropped === 1,
        },
      );
      notes.push(
        `${n} subscribers: ${plain.delivered} of ${eventCount * n} messages delivered without the stalled one, ` +
          `${slowed.delivered} with it; in all runs, out of order: ` +
          `${[...plains, ...sloweds].reduce((sum, r) => sum + r.outOfOrder, 0)}, dropped without the stalled ` +
          `one: ${plains.reduce((sum, r) => sum + r.dropped, 0)}, dropped with it: ` +
          sloweds.map((r) => r.dropped).join(', '),
      );
      notes.push(
        `${n} subscribers: p99 of each run, without the stalled one: ` +
          `${plains.map((r) => r.p99Ms.toFixed(1)).join(', ')} ms; with it: ` +
          `${sloweds.map((r) => r.p99Ms.toFixed(1)).join(', ')} ms`,
      );
      process.stdout.write(`${n}: ${JSON.stringify({ plains, sloweds })}\n`);
    }
  } finally {
    clients.child.disconnect();
    await t.close();
  }
  // The machine is shared: what else ran, and whether this process ran ahead of it (a negative nice).
  notes.push(
    `machine load (1-minute average) at the start and the end: ${loadBefore.toFixed(1)}, ` +
      `${(os.loadavg()[0] ?? 0).toFixed(1)}; the bench's priority (nice): ${os.getPriority()}`,
  );
  writeResult({
    benchmark: 'events',
    command: 'npm run bench -- events',
    summary:
      `Event-stream subscribers on one hub receiving ${eventCount} presence and exec events due at ` +
      `${rate}/s (50 asset ids each, about 1.8 KB), with and without one subscriber that stops reading; of ` +
      `${repeats} runs each (at least 5 up to 100 subscribers), the one with the median p99. Latency counts ` +
      'from when an event was due, so a hub that falls behind shows it. ' +
      (deflate
        ? 'The clients offer permessage-deflate, as browsers do, and get each event compressed once (about ' +
          '300 bytes; decision 0100). '
        : 'The clients do not offer permessage-deflate (BENCH_DEFLATE=0): plain frames. ') +
      'The clients run ' +
      "in a child process, walk the frames and time about 100 clients' messages (see bench/events.bench.ts).",
    figures,
    notes,
  });
}
