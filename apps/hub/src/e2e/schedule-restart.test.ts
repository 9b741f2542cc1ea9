/**
 * End to end (issue 14, "Done when"): a schedule, the hub killed with SIGKILL and started again across its
 * tick, runs exactly once. The hub runs as users start it (compiled, SQLite, HTTPS); the real svc-agent runs
 * the scheduled command, which appends a line to a file, so a second run would show as a second line.
 *
 * Two schedules, each with one tick a few seconds ahead (6-field cron: seconds first):
 * - `during`: its run starts (the command has written `start`), then the hub is killed mid-run. Started
 *   again, the hub reports that run `interrupted` and never runs the tick again.
 * - `down`: its tick falls while the hub is down. Started again within the late grace (60 s), the hub runs
 *   it once, late.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimOwner } from '@svc/testkit';
import type { EnrollmentTokenCreated, Schedule, ScheduleRun } from '@svc/protocol';
import {
  dataOf,
  enrollAgent,
  fetchHubTrust,
  freePort,
  HubClient,
  killChildren,
  powerGuard,
  runAgent,
  sleep,
  startHubProcess,
  waitFor,
  waitForHub,
  waitOnline,
  type AgentProcess,
  type Child,
} from './support.js';

let work: string;
let dataDir: string;
let ports: { httpPort: number; httpsPort: number };
let baseUrl: string;
let hub: Child;
let ownerKey: string;
let owner: HubClient;
let agent: AgentProcess;
let assetId: string;

async function startHub(): Promise<Child> {
  const child = startHubProcess({ dataDir, ...ports });
  await waitForHub(baseUrl, child);
  return child;
}

/** A 6-field cron expression that ticks once a year: at the UTC second of `at`. */
function cronAt(at: Date): string {
  return [
    at.getUTCSeconds(),
    at.getUTCMinutes(),
    at.getUTCHours(),
    at.getUTCDate(),
    at.getUTCMonth() + 1,
    '*',
  ].join(' ');
}

/** The next whole second at least `ms` from now. */
function secondsAhead(ms: number): Date {
  return new Date(Math.ceil((Date.now() + ms) / 1000) * 1000);
}

async function runs(id: string): Promise<ScheduleRun[]> {
  return dataOf<ScheduleRun[]>(await owner.get(`/api/v2/schedules/${id}/runs`));
}

function lines(file: string): string[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-schedule-'));
  dataDir = path.join(work, 'hub-data');
  ports = { httpPort: await freePort(), httpsPort: await freePort() };
  baseUrl = `https://127.0.0.1:${String(ports.httpsPort)}`;
  hub = await startHub();
  const trust = await fetchHubTrust(baseUrl);
  ownerKey = (await claimOwner(baseUrl, dataDir, { ca: trust.caPem })).ownerKey;
  owner = new HubClient(baseUrl, trust.caPem, ownerKey);
  const token = dataOf<EnrollmentTokenCreated>(
    await owner.post('/api/v2/enrollment-tokens', { name: 'schedule e2e', max_uses: 1 }),
    201,
  );
  const configPath = path.join(work, 'agent', 'settings.json');
  const enrolled = await enrollAgent({
    hubUrl: baseUrl,
    token: token.token,
    caFingerprint: trust.caFingerprint,
    configPath,
    hostname: 'schedule-agent',
  });
  if (enrolled.code !== 0) throw new Error(`svc-agent enroll failed: ${enrolled.output}`);
  assetId = (JSON.parse(fs.readFileSync(configPath, 'utf8')) as { asset_id: string }).asset_id;
  const guard = powerGuard(work);
  agent = runAgent(configPath, {
    SVC_AGENT_ALLOW_POWER_ACTIONS: 'false',
    PATH: `${guard.binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  });
  await waitOnline(owner, assetId, 40_000);
}, 120_000);

afterAll(async () => {
  const started = { agent, owner, work } as Partial<{ agent: AgentProcess; owner: HubClient; work: string }>;
  await started.agent?.stop('SIGTERM', 3_000);
  await killChildren();
  started.owner?.close();
  if (started.work) fs.rmSync(started.work, { recursive: true, force: true });
}, 30_000);

describe('a schedule across a hub kill and restart', () => {
  it('runs each tick exactly once: not again after a kill mid-run, once late after a tick while down', async () => {
    const duringFile = path.join(work, 'during.log');
    const downFile = path.join(work, 'down.log');
    const duringTick = secondsAhead(4000);
    const during = dataOf<Schedule>(
      await owner.post('/api/v2/schedules', {
        name: 'during',
        cron: cronAt(duringTick),
        timezone: 'UTC',
        command: `echo start >> '${duringFile}'; sleep 3; echo end >> '${duringFile}'`,
        targets: [assetId],
      }),
      201,
    );
    expect(during.next_run_at).toBe(duringTick.toISOString());

    // The run has begun on the agent: the claim was committed before the command was sent.
    await waitFor('the scheduled command to start', () => (lines(duringFile).length > 0 ? true : undefined), {
      timeoutMs: 15_000,
      intervalMs: 50,
    });
    const downTick = secondsAhead(2500);
    const down = dataOf<Schedule>(
      await owner.post('/api/v2/schedules', {
        name: 'down',
        cron: cronAt(downTick),
        command: `echo ran >> '${downFile}'`,
        targets: [assetId],
      }),
      201,
    );
    owner.close();
    hub.process.kill('SIGKILL');
    expect((await hub.exited).signal).toBe('SIGKILL');
    // Stay down across the second schedule's tick.
    while (Date.now() < downTick.getTime() + 500) await sleep(100);

    hub = await startHub();
    owner = new HubClient(baseUrl, (await fetchHubTrust(baseUrl)).caPem, ownerKey);
    const interrupted = await waitFor('the interrupted run to be reported', async () => {
      const list = await runs(during.id);
      return list.length > 0 && list[0]?.status !== 'running' ? list : undefined;
    });
    expect(interrupted.map((r) => [r.tick_at, r.status])).toEqual([
      [duringTick.toISOString(), 'interrupted'],
    ]);
    const late = await waitFor('the tick missed while down to run', async () => {
      const list = await runs(down.id);
      return list.length > 0 && list[0]?.status !== 'running' ? list : undefined;
    });
    expect(late.map((r) => [r.tick_at, r.status, r.ticks])).toEqual([
      [downTick.toISOString(), 'completed', 1],
    ]);

    // The agent comes back; give the scheduler passes enough to run anything a second time.
    await waitOnline(owner, assetId, 75_000);
    await sleep(3000);
    expect((await runs(during.id)).length).toBe(1);
    expect((await runs(down.id)).length).toBe(1);
    expect(lines(duringFile).filter((l) => l === 'start')).toEqual(['start']);
    // The late run found the agent either back already (one line) or not yet (an offline result): never two.
    const [downRun] = await runs(down.id);
    expect(lines(downFile)).toEqual(downRun?.summary?.ok === 1 ? ['ran'] : []);
    const listed = dataOf<Schedule[]>(await owner.get('/api/v2/schedules'));
    // Both ticks are behind; the next is a year ahead.
    for (const s of listed) expect(Date.parse(s.next_run_at ?? '')).toBeGreaterThan(Date.now() + 86_400_000);
  }, 180_000);
});
