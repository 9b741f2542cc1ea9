/**
 * The fault suite, part two (issue 29, "Tests and figures"): three built hub processes on a PostgreSQL server of
 * the test's own (never the shared one: this file stops it) and a nats-server of its own, behind HAProxy running
 * deploy/haproxy/haproxy.cfg, with three real agents connected through HAProxy (one held by each process).
 * Faults that end a process or restart the database, each with a writer and a reader going through HAProxy:
 * - `kill -9` of one process: every write acknowledged is there afterwards, the reader saw no failure (HAProxy
 *   retries GETs), the killed process's agents are online on the others within 60 s;
 * - SIGTERM of one process (the shutdown drain, decision 0048): no request fails, its agents are online on the
 *   other processes within 15 s of the signal;
 * - PostgreSQL restarted: requests needing the database answer 503 (never 500, never a reset), no process
 *   exits, and everything recovers on its own within 30 s of PostgreSQL's return.
 *
 * Part one (stalls, NATS, the CA) is cluster-faults.e2e.test.ts; docs/operations.md ("Faults and what you
 * see") describes each fault as these tests check it.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haproxyBinary, startPostgresServer, type OwnPostgresServer } from '@svc/testkit';
import {
  execEcho,
  failed,
  readyzOf,
  requestLoop,
  retriesDroppedByHaproxy,
  startFaultCluster,
  waitAllOnline,
  type FaultCluster,
  type LoopAnswer,
} from './cluster-faults-support.js';
import { HubClient, sleep, waitFor } from './support.js';

const haveHaproxy = fs.existsSync(haproxyBinary);

let postgres: OwnPostgresServer | undefined;
let fc: FaultCluster;
/** Clients of their own for the loops (their connections are not the probes'). */
let writerClient: HubClient | undefined;
let readerClient: HubClient | undefined;

beforeAll(async () => {
  if (!haveHaproxy) return;
  postgres = await startPostgresServer();
  // Every process drains 5 s on SIGTERM (above HAProxy's 2 checks 2 s apart), as with SVC_NATS_URL by default.
  // A nats-server of its own too: what the processes keep in NATS is theirs alone.
  fc = await startFaultCluster({
    postgresUrl: postgres.url,
    ownNats: true,
    env: { SVC_SHUTDOWN_DRAIN_SECONDS: '5' },
  });
  writerClient = new HubClient(fc.lb.url, fc.cluster.caPem, fc.cluster.owner.key);
  readerClient = new HubClient(fc.lb.url, fc.cluster.caPem, fc.cluster.owner.key);
}, 180_000);

afterAll(async () => {
  writerClient?.close();
  readerClient?.close();
  await (fc as FaultCluster | undefined)?.close();
  await postgres?.close();
}, 60_000);

function client(c: HubClient | undefined): HubClient {
  if (!c) throw new Error('the cluster did not start');
  return c;
}

/** Creates groups through HAProxy; each 201 keeps the id (an acknowledged write). */
function startWriter(prefix: string) {
  return requestLoop(async (n) => {
    const res = await client(writerClient).post(
      '/api/v2/groups',
      { name: `${prefix}-${String(n)}` },
      { timeoutMs: 15_000 },
    );
    return res.status === 201
      ? { status: res.status, value: (res.json.data as { id: string }).id }
      : { status: res.status };
  });
}

/** Lists through HAProxy, turn by turn: groups, assets, the caller. */
function startReader() {
  const paths = ['/api/v2/groups?per_page=20', '/api/v2/assets?per_page=20', '/api/v2/whoami'];
  return requestLoop(async (n) => {
    const res = await client(readerClient).get(paths[n % paths.length] ?? '/api/v2/whoami', {
      timeoutMs: 15_000,
    });
    return { status: res.status };
  });
}

const acknowledged = (answers: readonly LoopAnswer[]) =>
  answers.filter((a) => a.status >= 200 && a.status < 300 && a.value).map((a) => a.value ?? '');

async function expectAllPresent(ids: readonly string[]): Promise<void> {
  const missing: string[] = [];
  for (const id of ids) {
    const res = await fc.viaLb.get(`/api/v2/groups/${id}`);
    if (res.status !== 200) missing.push(`${id}: ${String(res.status)}`);
  }
  expect(missing).toEqual([]);
}

/** Waits until HAProxy's log has one more `hubN is DOWN` for the process than `before` (bounded). */
async function waitMarkedDown(index: number, before: number, timeoutMs = 15_000): Promise<void> {
  const name = `hub${String(index + 1)}`;
  await waitFor(
    `${name} marked down by HAProxy`,
    () => {
      const marks = fc.lb.output().split(`${name} is DOWN`).length - 1;
      return marks > before ? true : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

const downCount = (index: number) => fc.lb.output().split(`hub${String(index + 1)} is DOWN`).length - 1;

describe.skipIf(!haveHaproxy)('a process is killed (kill -9)', () => {
  it(
    'under a writer and a reader: no acknowledged write lost, no read failed, its agents online on the others within 60 s',
    { timeout: 150_000 },
    async () => {
      await fc.heal();
      const victim = await fc.holderOf(fc.agents[1]?.assetId ?? '');
      const held = (await fc.agentsHeldBy(victim)).map((a) => a.assetId);
      const downBefore = downCount(victim);
      const writer = startWriter('kill-9');
      const reader = startReader();
      let killedAt = 0;
      try {
        await waitFor(
          'writes and reads under way',
          () => (acknowledged(writer.answers).length >= 15 && reader.answers.length >= 15 ? true : undefined),
          { timeoutMs: 30_000, intervalMs: 50 },
        );
        await fc.cluster.kill(victim);
        killedAt = Date.now();
        // On until HAProxy has taken it out, and a little more.
        await waitMarkedDown(victim, downBefore);
        await sleep(1_000);
      } finally {
        await Promise.all([writer.stop(), reader.stop()]);
      }
      const afterKill = reader.answers.filter((a) => a.at >= killedAt).length;
      expect(afterKill).toBeGreaterThan(5);
      expect(failed(reader.answers, (s) => s === 200)).toEqual([]);
      await expectAllPresent(acknowledged(writer.answers));

      // Its agents reconnect through HAProxy to the others.
      await waitAllOnline(fc.viaLb, held, Math.max(1_000, 60_000 - (Date.now() - killedAt)));
      for (const id of held) {
        const holder = await fc.holderOf(id, 5_000);
        expect(holder).not.toBe(victim);
        expect(await execEcho(fc.viaLb, id, 'after-kill')).toMatchObject({
          status: 200,
          stdout: 'after-kill\n',
        });
      }
      expect(Date.now() - killedAt).toBeLessThanOrEqual(60_000);

      await fc.cluster.start(victim);
    },
  );
});

describe.skipIf(!haveHaproxy)('a process is stopped with SIGTERM (drain)', () => {
  it(
    'no request fails through HAProxy; its agents are online on the other processes within 15 s',
    { timeout: 120_000 },
    async () => {
      await fc.heal();
      const drained = await fc.holderOf(fc.agents[2]?.assetId ?? '');
      const held = (await fc.agentsHeldBy(drained)).map((a) => a.assetId);
      const reader = startReader();
      const writer = startWriter('drain');
      let signalledAt = 0;
      let movedWithinMs: number;
      try {
        await waitFor('reads under way', () => (reader.answers.length >= 10 ? true : undefined), {
          timeoutMs: 20_000,
          intervalMs: 50,
        });
        signalledAt = Date.now();
        const stopped = fc.cluster.stop(drained, 30_000);
        // Held by another process (the asset's holder changed), online.
        await waitFor(
          'the drained process’s agents held by the others',
          async () => {
            for (const id of held) {
              const holders = await fc.holdersOf(id);
              if (holders.length !== 1 || holders[0] === drained) return undefined;
            }
            return true;
          },
          { timeoutMs: 15_000, intervalMs: 200 },
        );
        movedWithinMs = Date.now() - signalledAt;
        await stopped;
        await sleep(1_000);
      } finally {
        await Promise.all([reader.stop(), writer.stop()]);
      }
      expect(movedWithinMs).toBeLessThanOrEqual(15_000);
      expect(reader.answers.filter((a) => a.at >= signalledAt).length).toBeGreaterThan(10);
      expect(failed(reader.answers, (s) => s === 200)).toEqual([]);
      // Writes are not retried by HAProxy: none may fail either while the process drains.
      expect(failed(writer.answers, (s) => s === 201)).toEqual([]);
      await expectAllPresent(acknowledged(writer.answers));
      await waitAllOnline(fc.viaLb, held, 5_000);
      for (const id of held)
        expect(await execEcho(fc.viaLb, id, 'after-drain')).toMatchObject({
          status: 200,
          stdout: 'after-drain\n',
        });

      await fc.cluster.start(drained);
    },
  );
});

/** The end of process `index`'s output when it is no longer the process with `pid` (it exited), else null. */
function exitedOutput(index: number, pid: number | null): string | null {
  const node = fc.cluster.nodes[index];
  return node && node.pid() !== pid ? node.output().slice(-3000) : null;
}

describe.skipIf(!haveHaproxy)('PostgreSQL restarts', () => {
  it(
    'requests needing the database answer 503, no process exits, all recovers on its own within 30 s',
    { timeout: 150_000 },
    async () => {
      if (!postgres) throw new Error('no PostgreSQL of the test’s own');
      await fc.heal();
      const { cluster } = fc;
      const pids = cluster.nodes.map((n) => n.pid());
      expect(pids.every((p) => p !== null)).toBe(true);
      const reader = startReader();
      const writer = startWriter('pg-restart');
      // Each process asked directly too (HAProxy answers 503 itself once it has taken them all out).
      const direct = [0, 1, 2].map((index) =>
        requestLoop(
          async () => ({
            status: (await fc.direct(index).get('/api/v2/groups?per_page=5', { timeoutMs: 15_000 })).status,
          }),
          {
            intervalMs: 100,
          },
        ),
      );
      let stoppedAt = 0;
      let backAt: number;
      try {
        await waitFor('reads under way', () => (reader.answers.length >= 10 ? true : undefined), {
          timeoutMs: 20_000,
          intervalMs: 50,
        });
        await postgres.stop();
        stoppedAt = Date.now();
        // Each process says so: /readyz 503 `database`, and a request needing the database is 503.
        for (const index of [0, 1, 2]) {
          const readyz = await waitFor(
            `process ${String(index)} unready (database)`,
            async () => {
              const exited = exitedOutput(index, pids[index] ?? null);
              if (exited !== null) return { exited };
              const r = await readyzOf(cluster, index);
              return r.status === 503 ? r : undefined;
            },
            { timeoutMs: 15_000, intervalMs: 250 },
          );
          if ('exited' in readyz)
            throw new Error(
              `hub process ${String(index)} exited while PostgreSQL was down:\n${readyz.exited}`,
            );
          expect(readyz.body).toMatchObject({ status: 'unready', reason: 'database' });
          await waitFor(
            `process ${String(index)} answering 503`,
            () =>
              direct[index]?.answers.some((a) => a.at > stoppedAt && a.status === 503) ? true : undefined,
            { timeoutMs: 15_000, intervalMs: 100 },
          );
        }
        // Down for a few seconds in all (longer than the lease: the processes cannot renew it meanwhile).
        const downMs = 6_000;
        if (Date.now() - stoppedAt < downMs) await sleep(downMs - (Date.now() - stoppedAt));
      } finally {
        await postgres.start();
        backAt = Date.now();
      }
      // HAProxy's log of the outage (it keeps its last 256 KiB: read before the recovery's lines push it out).
      const droppedByHaproxy = retriesDroppedByHaproxy(fc.lb.output());

      // Recovers by itself: every process ready, reads and writes through HAProxy, exec to every agent.
      for (const index of [0, 1, 2]) {
        await waitFor(
          `process ${String(index)} ready again`,
          async () => ((await readyzOf(cluster, index)).body.status === 'ready' ? true : undefined),
          { timeoutMs: 30_000, intervalMs: 250 },
        );
      }
      await waitFor(
        'a write through HAProxy',
        async () =>
          (await fc.viaLb.post('/api/v2/groups', { name: 'after-pg-restart' })).status === 201
            ? true
            : undefined,
        { timeoutMs: 30_000, intervalMs: 250 },
      );
      await waitAllOnline(
        fc.viaLb,
        fc.agents.map((a) => a.assetId),
        Math.max(1_000, 30_000 - (Date.now() - backAt)),
      );
      // Exec to every agent within the same 30 s. Listed online is not yet reachable everywhere: a process
      // that resumed its lease re-asserts the agents it holds, and the others learn it (seen once in CI: 409
      // for an agent already listed online, gone on its own within the window).
      for (const a of fc.agents) {
        let last: Awaited<ReturnType<typeof execEcho>> | undefined;
        await waitFor(
          `exec to ${a.assetId} through HAProxy`,
          async () => {
            last = await execEcho(fc.viaLb, a.assetId, 'after-pg');
            return last.status === 200 ? true : undefined;
          },
          { timeoutMs: Math.max(1_000, 30_000 - (Date.now() - backAt)), intervalMs: 250 },
        ).catch(() => undefined);
        expect(last).toMatchObject({ status: 200, stdout: 'after-pg\n' });
      }
      const recoveredWithinMs = Date.now() - backAt;
      await sleep(500);
      const [readAnswers, writeAnswers, ...directAnswers] = await Promise.all([
        reader.stop(),
        writer.stop(),
        ...direct.map((d) => d.stop()),
      ]);
      expect(recoveredWithinMs).toBeLessThanOrEqual(30_000);
      // No process exited.
      expect(cluster.nodes.map((n) => n.pid())).toEqual(pids);
      // Through HAProxy: an answer or a clear 503 (from a process, or from HAProxy with none in rotation), but
      // for a GET HAProxy was sending again at the moment its last process left rotation: it closes those
      // without an answer, and says so in its log (one per such close, none otherwise).
      const dropped = readAnswers.filter((a) => a.status === 0 && a.error === 'socket hang up');
      expect(dropped.length).toBeLessThanOrEqual(droppedByHaproxy);
      expect(
        failed(
          readAnswers.filter((a) => !dropped.includes(a)),
          (s) => s === 200 || s === 503,
        ),
      ).toEqual([]);
      expect(failed(writeAnswers, (s) => s === 201 || s === 503)).toEqual([]);
      // Straight from each process: never a 500, never a dropped connection.
      // A 500 is a defect: the processes' own log of it goes with the failure.
      const defects = cluster.nodes
        .flatMap((n) => n.output().split('\n'))
        .filter((line) => line.includes('unexpected error'))
        .join('\n');
      for (const answers of directAnswers)
        expect(
          failed(answers, (s) => s === 200 || s === 503),
          defects,
        ).toEqual([]);
      // Nothing acknowledged was lost across the restart.
      await expectAllPresent(acknowledged(writeAnswers));
    },
  );
});
