/**
 * What a TLS handshake costs the hub's process, by key exchange group (issue 11 item 2, D(HE)at). The hub as
 * shipped (main.ts, built-in CA) takes handshakes from this process one after another; its CPU time comes
 * from /proc. The baseline is a bare node TLS server with the hub's former policy (OpenSSL 3.0's default groups,
 * finite-field ones included), measured the same way in the same run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { cpuSecondsOf } from './lib/proc-stats.js';
import { freePort, startTs, type Child } from './lib/processes.js';
import { writeResult, type Figure } from './lib/report.js';

const groups = [
  { group: 'X25519', count: 300 },
  { group: 'P-256', count: 300 },
  { group: 'ffdhe2048', count: 40 },
  { group: 'ffdhe8192', count: 15 },
] as const;
/** Each group's loop stops at its count or after this long, whichever comes first. */
const loopLimitMs = 60_000;

function handshake(port: number, group: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tls.connect(
      { host: '127.0.0.1', port, rejectUnauthorized: false, ecdhCurve: group, servername: 'localhost' },
      () => {
        socket.destroy();
        resolve(true);
      },
    );
    socket.on('error', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

interface Run {
  group: string;
  attempts: number;
  accepted: number;
  cpuMsPerHandshake: number;
  perSecond: number;
}

async function measure(pid: number, port: number, group: string, count: number): Promise<Run> {
  for (let i = 0; i < 3; i++) await handshake(port, group); // warm-up
  const cpuBefore = cpuSecondsOf(pid);
  const started = performance.now();
  let attempts = 0;
  let accepted = 0;
  while (attempts < count && performance.now() - started < loopLimitMs) {
    attempts++;
    if (await handshake(port, group)) accepted++;
  }
  const wallS = (performance.now() - started) / 1000;
  return {
    group,
    attempts,
    accepted,
    cpuMsPerHandshake: ((cpuSecondsOf(pid) - cpuBefore) * 1000) / attempts,
    perSecond: attempts / wallS,
  };
}

async function measureAll(child: Child, port: number): Promise<Run[]> {
  const pid = child.process.pid ?? 0;
  const runs: Run[] = [];
  for (const { group, count } of groups) runs.push(await measure(pid, port, group, count));
  return runs;
}

export async function runTlsBench(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-tls-'));
  const httpsPort = await freePort();
  const barePort = await freePort();
  let hub: Child | null = null;
  let bare: Child | null = null;
  try {
    hub = await startTs(
      'apps/hub/src/main.ts',
      {
        SVC_DATA_DIR: path.join(work, 'data'),
        SVC_TLS_MODE: 'auto',
        SVC_HOST: '127.0.0.1',
        SVC_HTTPS_PORT: String(httpsPort),
        SVC_HTTP_PORT: String(await freePort()),
        SVC_LOCAL_AGENT: 'false',
        SVC_BCRYPT_COST: '4',
        SVC_LOG_LEVEL: 'info',
      },
      'svc hub on',
      120_000,
    );
    bare = await startTs('bench/lib/bare-tls-server.ts', { BARE_TLS_PORT: String(barePort) }, 'listening');
    const hubRuns = await measureAll(hub, httpsPort);
    const bareRuns = await measureAll(bare, barePort);
    const figures: Figure[] = [];
    for (const [i, run] of hubRuns.entries()) {
      const base = bareRuns[i] as Run;
      const ecdh = !run.group.startsWith('ffdhe');
      figures.push({
        name: `${run.group}: hub CPU per handshake (accepted ${run.accepted}/${run.attempts}); former policy`,
        value: `${run.cpuMsPerHandshake.toFixed(2)} ms; ${base.cpuMsPerHandshake.toFixed(2)} ms (accepted ${base.accepted}/${base.attempts})`,
        target: ecdh ? 'accepted' : 'refused, < 2 ms',
        met: ecdh ? run.accepted === run.attempts : run.accepted === 0 && run.cpuMsPerHandshake < 2,
      });
      figures.push({
        name: `${run.group}: handshakes/s from one sequential client, hub; former policy`,
        value: `${run.perSecond.toFixed(0)}; ${base.perSecond.toFixed(0)}`,
      });
    }
    const ffdhe8192 = bareRuns.find((r) => r.group === 'ffdhe8192');
    const x25519 = hubRuns.find((r) => r.group === 'X25519');
    writeResult({
      benchmark: 'tls',
      command: 'npm run bench -- tls',
      summary:
        'CPU time one TLS handshake costs the hub process, by the key exchange group the client offers: the hub as ' +
        "shipped (X25519, P-256 and P-384 only) and a bare node TLS server with the hub's former policy " +
        "(OpenSSL 3.0's default groups, ffdhe2048…ffdhe8192 included, named since OpenSSL 3.5 dropped the larger " +
        'ones from its defaults), one client doing handshakes one after another.',
      figures,
      notes: [
        `An ffdhe8192 handshake cost the former policy ${ffdhe8192?.cpuMsPerHandshake.toFixed(0) ?? '?'} ms of server CPU, ` +
          `${ffdhe8192 && x25519 ? (ffdhe8192.cpuMsPerHandshake / x25519.cpuMsPerHandshake).toFixed(0) : '?'}× ` +
          'an X25519 handshake on the hub: all of it on the main thread, before any authentication.',
        'The hub refuses a client that offers only finite-field groups at its ClientHello (handshake_failure), so ' +
          'such a client costs it no more than any refused connection.',
        'CPU from /proc/<pid>/stat (10 ms ticks), divided by the attempts; the hub figure includes its idle timers.',
      ],
    });
  } finally {
    await hub?.stop();
    await bare?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
