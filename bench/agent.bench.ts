/**
 * agent: one real svc-agent process's resident memory and CPU, idle but connected to a hub, at default and at
 * low-power settings (SVC_LOW_POWER_MODE=true); then the same after every feature was used once through the hub
 * (exec, a terminal, files, containers, system views, metrics, discovery, a desktop tunnel) and the agent is
 * idle again. Targets (issue 31), as ratios to a bare node in the same window: idle RSS ≤ 1.15×, idle CPU ≤ bare
 * + 0.05 % of a core, after the features RSS ≤ 1.3×.
 *
 * Each agent is started as it is shipped — `node apps/agent/bin/svc-agent.js run`, which runs the precompiled
 * bundle apps/agent/dist/svc-agent.mjs (esbuild, built on `npm install`; rebuilt here first) — and, for
 * comparison, `node --import tsx apps/agent/src/cli/main.ts run`: the TypeScript sources under the tsx loader,
 * which shows what the loader costs. Baseline over the same window: a bare
 * `node -e "setInterval(() => {}, 1000)"`. All five processes run at once (the same window, the same noise),
 * each agent with an identity of its own, against one hub process over HTTPS with its built-in CA.
 *
 * Readings come from /proc/<pid>: utime + stime at the start and the end of the window (after a settling
 * time, so start-up is not counted), VmRSS every second. Knobs: BENCH_SECONDS (window, default 60),
 * BENCH_SETTLE_SECONDS (default 10).
 *
 * Containers: when `podman` is installed, the bench starts its Docker-compatible API on a socket of its own
 * (`podman system service`) and points the shipped agents' docker_endpoint at it; without podman the
 * containers requests still load the agent's container code and answer that no engine answers (said so in
 * the notes). Wake-on-LAN and power are not exercised (a LAN broadcast; a reboot).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import WebSocket from 'ws';
import { writeSettingsFile } from '@svc/agent';
import type { SimulatedAgentIdentity } from '@svc/testkit';
import { cleanup, prepareFleet, startHubProcess } from './lib/fleet.js';
import { jsonClient, type JsonClient } from './lib/https-json.js';
import { openHubTerminal, whenReady } from './lib/terminal-clients.js';
import { cpuSecondsOf, rssBytesOf, spawnNode, type NodeChild } from './lib/proc-stats.js';
import { repoRoot, writeResult, type Figure } from './lib/report.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const settleSeconds = Number(process.env.BENCH_SETTLE_SECONDS ?? 10);
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const signed = (v: number) => `${v < 0 ? '−' : '+'}${Math.abs(v).toFixed(2)}`;

interface Window {
  rss: number[];
  cpuStart: number;
  cpuEnd: number;
  seconds: number;
}

interface Subject {
  name: string;
  kind: 'agent' | 'baseline';
  /** The targets apply to the agent as shipped; the run from source is a comparison. */
  isShipped: boolean;
  assetId: string;
  child: NodeChild;
  idle: Window;
  /** After every feature was used once (shipped agents and the baseline only). */
  after: Window | null;
}

/** The TCP sockets of the machine (the other processes' too): what the agent's discovery scan reads. */
function tcpSockets(): number {
  try {
    return fs.readFileSync('/proc/net/tcp', 'latin1').split('\n').length - 2;
  } catch {
    return 0;
  }
}

const newWindow = (): Window => ({ rss: [], cpuStart: 0, cpuEnd: 0, seconds: 0 });

/** Samples VmRSS every second and CPU over the window, for all `subjects` at once. */
async function measureWindow(subjects: Subject[], pick: (s: Subject) => Window | null, seconds: number) {
  const measured = subjects.flatMap((s) => {
    const w = pick(s);
    return w ? [{ s, w }] : [];
  });
  for (const { s, w } of measured) w.cpuStart = cpuSecondsOf(s.child.pid);
  const started = performance.now();
  for (let second = 0; second < seconds; second++) {
    await new Promise((r) => setTimeout(r, 1000));
    for (const { s, w } of measured) w.rss.push(rssBytesOf(s.child.pid));
  }
  const windowS = (performance.now() - started) / 1000;
  for (const { s, w } of measured) {
    w.cpuEnd = cpuSecondsOf(s.child.pid);
    w.seconds = windowS;
  }
}

const cpuPercent = (w: Window) => ((w.cpuEnd - w.cpuStart) / w.seconds) * 100;
const meanRss = (w: Window) => w.rss.reduce((a, b) => a + b, 0) / w.rss.length;
const maxRss = (w: Window) => Math.max(...w.rss);

/** The podman program (BENCH_PODMAN to use another); the containers part runs without it. */
const podmanProgram = process.env.BENCH_PODMAN ?? 'podman';

/** Podman's Docker-compatible API on a socket of our own, when podman is installed; null otherwise. */
async function startPodman(dir: string): Promise<{ endpoint: string; process: ChildProcess } | null> {
  const socket = path.join(dir, 'podman.sock');
  let child: ChildProcess;
  try {
    child = spawn(podmanProgram, ['system', 'service', '--time=0', `unix://${socket}`], { stdio: 'ignore' });
  } catch {
    return null;
  }
  const failed = new Promise<null>((resolve) => {
    child.once('error', () => {
      resolve(null);
    });
    child.once('exit', () => {
      resolve(null);
    });
  });
  const ready = (async () => {
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const answers = await new Promise<boolean>((resolve) => {
        const conn = net.connect(socket, () => {
          conn.end('GET /_ping HTTP/1.0\r\n\r\n');
        });
        let text = '';
        conn.on('data', (d: Buffer) => (text += d.toString()));
        conn.on('close', () => {
          resolve(text.includes('OK'));
        });
        conn.on('error', () => {
          resolve(false);
        });
      });
      if (answers) return { endpoint: `unix://${socket}`, process: child };
    }
    return null;
  })();
  const outcome = await Promise.race([ready, failed]);
  if (!outcome) child.kill('SIGKILL');
  return outcome;
}

/** A stand-in for the machine's VNC server: greets as RFB does and echoes what it receives. */
function startFakeVnc(): Promise<{ port: number; server: net.Server }> {
  const server = net.createServer((socket) => {
    socket.write('RFB 003.008\n');
    socket.on('data', (d) => socket.write(d));
    socket.on('error', () => socket.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve({ port: (server.address() as net.AddressInfo).port, server });
    });
  });
}

interface FeatureUse {
  feature: string;
  outcome: string;
}

/**
 * Uses every feature of the agent `assetId` once through the hub's API, as the console would; each answers
 * with what the hub said (an answer of the agent's `{ok: false}` still ran the agent's code for it).
 */
async function useEveryFeature(
  hub: { origin: string; ca: string; http: JsonClient },
  key: string,
  assetId: string,
  dir: string,
): Promise<FeatureUse[]> {
  const headers = { authorization: `Bearer ${key}` };
  const asset = `${hub.origin}/api/v2/assets/${encodeURIComponent(assetId)}`;
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await hub.http.request(method, url, {
      ...(body === undefined ? {} : { body }),
      headers,
      timeoutMs: 60_000,
    });
    const error = res.status >= 300 ? ` ${res.text.slice(0, 160)}` : '';
    return `${method} ${res.status}${error}`;
  };
  const file = path.join(dir, `files-${assetId.slice(-6)}`, 'bench.txt');
  const steps: [string, () => Promise<string>][] = [
    ['exec', () => call('POST', `${asset}/exec`, { command: 'echo bench; uname -r' })],
    [
      'terminal',
      async () => {
        const term = await openHubTerminal(hub, key, assetId);
        try {
          await whenReady(term, 20_000);
          term.mark();
          term.write('ls / | head -3; echo DONE$((2*3))\r');
          await term.waitFor('DONE6', 20_000);
          return 'opened, ran a command, closed';
        } finally {
          await term.close();
        }
      },
    ],
    [
      'files',
      async () =>
        [
          await call('POST', `${asset}/files/mkdir`, { path: path.dirname(file), recursive: true }),
          await call('POST', `${asset}/files/write`, {
            path: file,
            content_base64: Buffer.from('x'.repeat(64 * 1024)).toString('base64'),
          }),
          await call('GET', `${asset}/files?path=${encodeURIComponent(path.dirname(file))}`),
          await call('GET', `${asset}/files/read?path=${encodeURIComponent(file)}`),
          await call('POST', `${asset}/files/copy`, { from: file, to: `${file}.copy` }),
          await call(
            'DELETE',
            `${asset}/files?path=${encodeURIComponent(path.dirname(file))}&recursive=true`,
          ),
        ].join(', '),
    ],
    [
      'containers',
      async () =>
        [
          await call('GET', `${hub.origin}/api/v2/container/hosts/${encodeURIComponent(assetId)}/containers`),
          await call('GET', `${hub.origin}/api/v2/container/hosts/${encodeURIComponent(assetId)}/images`),
          await call('GET', `${hub.origin}/api/v2/container/hosts/${encodeURIComponent(assetId)}/volumes`),
        ].join(', '),
    ],
    [
      'system views',
      async () =>
        (
          await Promise.all(
            ['processes', 'services', 'network', 'disks', 'users', 'cron', 'packages', 'logs'].map(
              async (view) => `${view.split('?')[0] ?? view}: ${await call('GET', `${asset}/${view}`)}`,
            ),
          )
        ).join(', '),
    ],
    ['metrics', () => call('GET', `${asset}/metrics`)],
    ['discovery', () => call('POST', `${hub.origin}/api/v2/discovery/run`, {})],
    [
      'desktop tunnel',
      async () => {
        const created = await hub.http.request('POST', `${asset}/desktop/sessions`, {
          body: {},
          headers,
          timeoutMs: 30_000,
        });
        if (created.status !== 201) return `POST ${created.status} ${created.text.slice(0, 160)}`;
        const session = (JSON.parse(created.text) as { data: { session: { stream_path: string } } }).data
          .session;
        const ws = new WebSocket(`${hub.origin.replace(/^http/, 'ws')}${session.stream_path}`, {
          headers,
          ca: hub.ca,
        });
        const greeting = await new Promise<string>((resolve) => {
          const timer = setTimeout(() => {
            resolve('no greeting in 20 s');
          }, 20_000);
          ws.once('message', (data: Buffer) => {
            clearTimeout(timer);
            resolve(`greeted: ${data.toString().trim()}`);
          });
          ws.once('error', (error) => {
            clearTimeout(timer);
            resolve(`error: ${error.message}`);
          });
        });
        ws.close();
        return greeting;
      },
    ],
  ];
  const uses: FeatureUse[] = [];
  for (const [feature, step] of steps) {
    try {
      uses.push({ feature, outcome: await step() });
    } catch (error) {
      uses.push({ feature, outcome: `failed: ${(error as Error).message.slice(0, 200)}` });
    }
  }
  return uses;
}

export async function runAgentBench(): Promise<void> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const fleet = await prepareFleet(4);
  const identities = fleet.identityFiles.flatMap(
    (file) => JSON.parse(fs.readFileSync(file, 'utf8')) as SimulatedAgentIdentity[],
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-agent-'));
  const hub = await startHubProcess(fleet);
  const http = jsonClient({ ca: fleet.ca });
  const podman = await startPodman(dir);
  const vnc = await startFakeVnc();
  const subjects: Subject[] = [];
  try {
    // The bundle as `npm install` leaves it, built from the sources as they are (as the test run does).
    execFileSync(process.execPath, [path.join(repoRoot, 'apps/agent/scripts/build.js')], {
      stdio: 'inherit',
    });
    const launcher = path.join(repoRoot, 'apps/agent/bin/svc-agent.js');
    // For comparison only: the TypeScript sources under the tsx loader (a dev tool, never shipped).
    const fromSource = ['--import', 'tsx', path.join(repoRoot, 'apps/agent/src/cli/main.ts')];
    const variants = [
      { name: 'svc-agent as shipped (precompiled bundle), default', fromSource: false, lowPower: false },
      { name: 'svc-agent as shipped (precompiled bundle), low power', fromSource: false, lowPower: true },
      { name: 'svc-agent from source under tsx, default', fromSource: true, lowPower: false },
      { name: 'svc-agent from source under tsx, low power', fromSource: true, lowPower: true },
    ];
    for (const [i, variant] of variants.entries()) {
      const identity = identities[i];
      if (!identity) throw new Error('not enough identities');
      const config = path.join(dir, `agent-${i}`, 'settings.json');
      await writeSettingsFile(config, {
        hub_url: hub.origin,
        asset_id: identity.assetId,
        credential: identity.credential,
        ca_pem: fleet.ca,
        allow_power_actions: false,
        vnc_port: vnc.port,
        ...(podman ? { docker_endpoint: podman.endpoint } : {}),
      });
      const child = await spawnNode(
        [...(variant.fromSource ? fromSource : [launcher]), 'run', '--config', config],
        {
          SVC_LOW_POWER_MODE: String(variant.lowPower),
          SVC_AGENT_LOG_LEVEL: 'info',
        },
        'connected to the hub',
      );
      subjects.push({
        name: variant.name,
        kind: 'agent',
        isShipped: !variant.fromSource,
        assetId: identity.assetId,
        child,
        idle: newWindow(),
        after: variant.fromSource ? null : newWindow(),
      });
    }
    const bare = await spawnNode(['-e', 'setInterval(() => {}, 1000)'], {}, null);
    subjects.push({
      name: 'bare node -e "setInterval(() => {}, 1000)"',
      kind: 'baseline',
      isShipped: false,
      assetId: '',
      child: bare,
      idle: newWindow(),
      after: newWindow(),
    });
    log(`agents connected; settling ${settleSeconds} s, then measuring ${seconds} s`);
    await new Promise((r) => setTimeout(r, settleSeconds * 1000));
    await measureWindow(subjects, (s) => s.idle, seconds);

    // Every feature once on each shipped agent, then idle again.
    const features = new Map<string, FeatureUse[]>();
    for (const s of subjects.filter((x) => x.after)) {
      if (s.kind !== 'agent') continue;
      log(`using every feature of ${s.name}`);
      features.set(
        s.name,
        await useEveryFeature({ origin: hub.origin, ca: fleet.ca, http }, fleet.ownerKey, s.assetId, dir),
      );
    }
    log(`features used; settling ${settleSeconds} s, then measuring ${seconds} s`);
    await new Promise((r) => setTimeout(r, settleSeconds * 1000));
    await measureWindow(subjects, (s) => s.after, seconds);

    const baseline = subjects.find((s) => s.kind === 'baseline') as Subject;
    const figures: Figure[] = [];
    for (const s of subjects) {
      const connections = s.child.output().split('connected to the hub').length - 1;
      if (s.kind === 'agent' && connections !== 1) {
        throw new Error(`${s.name} connected ${connections} times:\n${s.child.output().slice(-1500)}`);
      }
      const cpu = cpuPercent(s.idle);
      figures.push(
        { name: `${s.name}: RSS mean / max`, value: `${mb(meanRss(s.idle))} / ${mb(maxRss(s.idle))}` },
        {
          name: `  CPU over ${s.idle.seconds.toFixed(0)} s`,
          value: `${cpu.toFixed(2)} % of a core (${((s.idle.cpuEnd - s.idle.cpuStart) * 1000).toFixed(0)} ms)`,
        },
      );
      if (s.kind === 'agent') {
        const ratio = maxRss(s.idle) / maxRss(baseline.idle);
        const cpuAbove = cpu - cpuPercent(baseline.idle);
        const heartbeat = /connected to the hub .*heartbeat_s=(\d+)/.exec(s.child.output())?.[1] ?? '?';
        figures.push(
          {
            name: '  RSS ratio to bare node (max / max)',
            value: `${ratio.toFixed(2)}×`,
            ...(s.isShipped ? { target: '≤ 1.15×', met: ratio <= 1.15 } : {}),
          },
          {
            name: '  CPU above bare node',
            value: `${signed(cpuAbove)} % of a core`,
            ...(s.isShipped ? { target: '≤ +0.05 %', met: cpuAbove <= 0.05 } : {}),
          },
          { name: '  heartbeat interval the agent settled on', value: `${heartbeat} s` },
        );
      }
      if (s.after) {
        const after = s.after;
        const label = s.kind === 'agent' ? 'after every feature was used once, idle again' : 'same window';
        figures.push({
          name: `  ${label}: RSS mean / max; CPU`,
          value: `${mb(meanRss(after))} / ${mb(maxRss(after))}; ${cpuPercent(after).toFixed(2)} % of a core`,
        });
        if (s.kind === 'agent' && baseline.after) {
          const ratio = maxRss(after) / maxRss(baseline.after);
          figures.push({
            name: '  after the features: RSS ratio to bare node; CPU above bare node',
            value: `${ratio.toFixed(2)}×; ${signed(cpuPercent(after) - cpuPercent(baseline.after))} % of a core`,
            target: '≤ 1.3×',
            met: ratio <= 1.3,
          });
        }
      }
      log(
        `${s.name}: RSS max ${mb(maxRss(s.idle))}${s.after ? ` (after features ${mb(maxRss(s.after))})` : ''}, CPU ${cpu.toFixed(2)} %`,
      );
    }
    const used = [...features.entries()].flatMap(([name, uses]) =>
      uses.map((u) => `${name}, ${u.feature}: ${u.outcome}`),
    );
    writeResult({
      benchmark: 'agent',
      command: `BENCH_SECONDS=${seconds} npm run bench -- agent`,
      summary: `One svc-agent process each, idle and connected over wss:// (the hub's built-in CA) to one hub process, all five processes measured over the same ${seconds} s window after ${settleSeconds} s of settling: RSS is VmRSS sampled every second, CPU is utime + stime from /proc/<pid>/stat over the window (in clock ticks of 10 ms). Then every feature of each shipped agent is used once through the hub's API (exec, a terminal, files, containers, the system views, metrics, discovery, a desktop tunnel to a stand-in VNC server) and, after ${settleSeconds} s of settling, the shipped agents and the baseline are measured again over a second window of the same length. Default settings: metrics every 10 s, heartbeat every 30 s; low power (SVC_LOW_POWER_MODE=true): metrics every 30 s, and a heartbeat of 120 s unless the hub asks for less (the agent never heartbeats less often than the hub's welcome says; the interval it settled on is in the table). "As shipped" is \`node apps/agent/bin/svc-agent.js run\`, which starts node again in the same process with the daemon's V8 options (apps/agent/bin/node-options.js, decision 0085) and runs the precompiled bundle apps/agent/dist/svc-agent.mjs (the agent and its dependencies bundled by esbuild on \`npm install\`; each area in dist/chunks, loaded on its first use, decision 0067); "from source under tsx" is \`node --import tsx apps/agent/src/cli/main.ts run\`, which compiles the TypeScript sources in the process (a comparison only). Baseline: a bare node process with one timer, same windows. Node ${process.version}.`,
      figures,
      notes: [
        `Load on the machine while measured: load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(
            ' / ',
          )} (1 / 5 / 15 min) on ${String(os.availableParallelism())} cores; ${String(tcpSockets())} TCP sockets in /proc/net/tcp, which the discovery scan reads through.`,
        `Containers: ${podman ? "podman's Docker-compatible API (`podman system service` on a socket of the bench's own) was reachable and the shipped agents used it" : "podman is not installed here, so the containers requests loaded the agent's container code but no engine answered"}. Wake-on-LAN (a LAN broadcast) and power (a reboot) were not exercised.`,
        ...used,
        'The targets are checked on the agent as shipped; the run from source under tsx is there to show what the loader costs (the agent no longer runs that way anywhere).',
      ],
    });
  } finally {
    await Promise.all(subjects.map((s) => s.child.stop()));
    await hub.child.stop();
    http.close();
    vnc.server.close();
    podman?.process.kill('SIGTERM');
    cleanup(fleet);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
