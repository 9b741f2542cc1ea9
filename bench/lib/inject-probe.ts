/** A quick in-process probe (not a committed benchmark): per-request cost of hub routes via inject(). */
import fs from 'node:fs';
import os from 'node:os';
import inspector from 'node:inspector';
import path from 'node:path';
import { createHub, parseEnv, silentLogger } from '@svc/hub';
import { seedAssets } from './seed-assets.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-probe-'));
const ownerKey = await seedAssets(dataDir, 10_000);
const config = parseEnv(
  { SVC_DATA_DIR: dataDir, SVC_TLS_MODE: 'disabled', SVC_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' },
  dataDir,
);
const hub = await createHub({ config, logger: silentLogger });
const headers = { authorization: `Bearer ${ownerKey}` };
for (const url of (process.env.PROBE_URLS ?? '/api/v2/assets?per_page=50,/api/v2/whoami').split(',')) {
  const first = await hub.app.inject({ method: 'GET', url, headers });
  if (first.statusCode !== 200)
    throw new Error(`${url} answered ${first.statusCode}: ${first.body.slice(0, 200)}`);
  for (let i = 0; i < 200; i++) await hub.app.inject({ method: 'GET', url, headers });
  const n = 2000;
  const session = process.env.PROBE_PROFILE ? new inspector.Session() : null;
  if (session) {
    session.connect();
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.start');
  }
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await hub.app.inject({ method: 'GET', url, headers });
  const ms = (performance.now() - t0) / n;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000 / n;
  if (session) {
    const { profile } = (await post(session, 'Profiler.stop')) as { profile: unknown };
    fs.writeFileSync(process.env.PROBE_PROFILE ?? 'probe.cpuprofile', JSON.stringify(profile));
  }
  process.stdout.write(
    `${url}: ${ms.toFixed(3)} ms/req wall, ${cpuMs.toFixed(3)} ms/req CPU (${(1000 / cpuMs).toFixed(0)} req/s per core)\n`,
  );
}
await hub.close();

function post(session: inspector.Session, method: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    session.post(method, (error, result) => {
      if (error) reject(error);
      else resolve(result);
    });
  });
}
