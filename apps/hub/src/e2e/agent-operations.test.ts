/**
 * End to end (issue 4, "Done when"): a real hub serving HTTPS with its built-in CA on loopback, and the real
 * svc-agent as its own process (`node apps/agent/bin/svc-agent.js enroll`, then `run`), connected over TLS.
 * Every endpoint of the Execution, Files, System info and Power tables is called through the REST API with
 * real keys, including scope, viewer and allowed_assets refusals, bad input, and a hostile agent.
 *
 * The agent runs with power actions disabled (enrolled with --no-power-actions and
 * SVC_AGENT_ALLOW_POWER_ACTIONS=false) and with a PATH whose shutdown/reboot/systemctl-poweroff only leave a
 * marker: nothing here can reboot the machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import {
  agentChannelPath,
  routes,
  scopes,
  type AgentRequestResult,
  type EnrollmentTokenCreated,
  type EnrollResponse,
  fileUploadBodyBytes,
  type ExecManyResult,
  type ExecResult,
  type MetricsOverview,
  type MetricsSeries,
  type RouteContract,
  type WakeResult,
} from '@svc/protocol';
import { FakeAgent, startTestHub, type TestHub } from '@svc/testkit';
import { magicPacket } from '../modules/power/wake-on-lan.js';
import {
  dataOf,
  enrollAgent,
  fetchHubTrust,
  HubClient,
  killChildren,
  listenUdp,
  powerGuard,
  RealTimeClock,
  runAgent,
  sleep,
  waitFor,
  waitOnline,
  type AgentProcess,
  type ApiResponse,
  type HubTrust,
  type UdpListener,
} from './support.js';

/** The routes of the interface's Execution, Files, System info (with an asset's metrics) and Power tables. */
const tablePrefixes = ['exec.', 'files.', 'system.', 'power.'];
const tableRoutes = (Object.values(routes) as RouteContract[]).filter(
  (r) => tablePrefixes.some((p) => r.name.startsWith(p)) || r.name === 'metrics.history',
);

let t: TestHub;
let work: string;
let udp: UdpListener;
let trust: HubTrust;
let hubUrl: string;
let owner: HubClient;
/** An operator key with every scope: what the tests use unless they test a refusal. */
let api: HubClient;
let agent: AgentProcess;
let assetId: string;
let assetName: string;
let guard: { binDir: string; marker: string };
let sent: ReturnType<typeof spyOnGateway>;

function spyOnGateway(hub: TestHub) {
  return vi.spyOn(hub.hub.gateway, 'request');
}

/** Requests the hub sent through the gateway, optionally of one type or to one asset. */
function requestsSent(filter: { type?: string; asset?: string } = {}): number {
  return sent.mock.calls.filter(
    ([asset, type]) =>
      (filter.type === undefined || type === filter.type) &&
      (filter.asset === undefined || asset === filter.asset),
  ).length;
}

async function createKey(body: Record<string, unknown>): Promise<string> {
  const created = dataOf<{ raw_key: string }>(
    await owner.post('/api/v2/keys', { name: 'e2e', role: 'operator', scopes: ['*'], ...body }),
    201,
  );
  return created.raw_key;
}

async function createAsset(body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  return dataOf<{ id: string; name: string }>(await api.post('/api/v2/assets', body), 201);
}

function expectError(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, error: res.json.error }, res.text.slice(0, 300)).toEqual({
    status,
    error: code,
  });
  expect(res.json.message).toEqual(expect.any(String));
}

const q = encodeURIComponent;

/** Pids of processes on this machine whose command line matches and that still run (not zombies). */
function liveProcesses(commandLine: RegExp): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      if (!commandLine.test(cmd)) continue;
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && state !== 'X') pids.push(Number(name));
    } catch {
      // Gone while we looked.
    }
  }
  return pids;
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-ops-'));
  udp = await listenUdp();
  t = await startTestHub({
    env: { SVC_TLS_MODE: 'auto', SVC_WOL_BROADCAST: `127.0.0.1:${udp.port}` },
    listen: true,
    injectAsHttps: true,
    clock: new RealTimeClock(),
  });
  hubUrl = `https://127.0.0.1:${String(t.servers?.httpsPort)}`;
  trust = await fetchHubTrust(hubUrl);
  owner = new HubClient(hubUrl, trust.caPem, t.ownerKey);
  api = owner.withKey(await createKey({ name: 'e2e operator' }));

  const token = dataOf<EnrollmentTokenCreated>(
    await owner.post('/api/v2/enrollment-tokens', { name: 'e2e agent', max_uses: 1 }),
    201,
  );
  expect(token.ca_fingerprint_sha256).toBe(trust.caFingerprint);
  const configPath = path.join(work, 'agent', 'settings.json');
  const enrolled = await enrollAgent({
    hubUrl,
    token: token.token,
    caFingerprint: trust.caFingerprint,
    configPath,
    hostname: 'e2e-agent',
  });
  if (enrolled.code !== 0) throw new Error(`svc-agent enroll failed: ${enrolled.output}`);
  const settings = JSON.parse(fs.readFileSync(configPath, 'utf8')) as {
    asset_id: string;
    allow_power_actions: boolean;
  };
  // The power switch is off before the agent ever runs.
  expect(settings.allow_power_actions).toBe(false);
  expect((fs.statSync(configPath).mode & 0o777).toString(8)).toBe('600');
  assetId = settings.asset_id;

  guard = powerGuard(work);
  agent = runAgent(configPath, {
    AGENT_COLLECT_INTERVAL: '1s',
    SVC_AGENT_ALLOW_POWER_ACTIONS: 'false',
    PATH: `${guard.binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  });
  try {
    const online = await waitOnline(owner, assetId, 40_000);
    assetName = online.name;
  } catch (error) {
    throw new Error(`${(error as Error).message}\nagent output:\n${agent.output()}`, { cause: error });
  }
  sent = spyOnGateway(t);
}, 90_000);

afterAll(async () => {
  // Whatever beforeAll got to before a failure.
  const started = { agent, owner, api, t, udp, work } as Partial<{
    agent: AgentProcess;
    owner: HubClient;
    api: HubClient;
    t: TestHub;
    udp: UdpListener;
    work: string;
  }>;
  await started.agent?.stop('SIGTERM', 3_000);
  await killChildren();
  started.owner?.close();
  started.api?.close();
  await started.t?.close();
  await started.udp?.close();
  if (started.work) fs.rmSync(started.work, { recursive: true, force: true });
}, 30_000);

describe('the real agent over TLS', () => {
  it('enrolled through the CLI and shows online with its agent connected and listed', async () => {
    const asset = dataOf<{
      name: string;
      source: string;
      platform: string;
      status: string;
      agent: { connected: boolean; version: string | null } | null;
    }>(await api.get(`/api/v2/assets/${assetId}`));
    expect(asset).toMatchObject({ name: 'e2e-agent', status: 'online', platform: 'linux' });
    expect(asset.agent?.connected).toBe(true);
    const agents = dataOf<{ asset_id: string; remote_address: string | null }[]>(
      await owner.get('/api/v2/hub/agents'),
    );
    expect(agents.map((a) => a.asset_id)).toContain(assetId);
    expect(agents.find((a) => a.asset_id === assetId)?.remote_address).toMatch(/127\.0\.0\.1/);
    expect(tableRoutes).toHaveLength(25);
  });
});

describe('execution', () => {
  it('runs a command: ok, exit 0, stdout captured', async () => {
    const result = dataOf<ExecResult>(
      await api.post(`/api/v2/assets/${assetId}/exec`, { command: 'echo hello' }),
    );
    expect(result).toMatchObject({
      asset_id: assetId,
      status: 'ok',
      exit_code: 0,
      stdout: 'hello\n',
      stderr: '',
      truncated: false,
      error: null,
    });
  });

  it('reports a failing command by its exit code and captures stderr', async () => {
    const result = dataOf<ExecResult>(
      await api.post(`/api/v2/assets/${assetId}/exec`, { command: 'echo out; echo oops >&2; exit 3' }),
    );
    expect(result).toMatchObject({ status: 'ok', exit_code: 3, stdout: 'out\n', stderr: 'oops\n' });
  });

  it('stops a command at its timeout, with everything it started, and says so', async () => {
    const started = Date.now();
    const result = dataOf<ExecResult>(
      await api.post(`/api/v2/assets/${assetId}/exec`, {
        command: 'sleep 7.25 & sleep 7.5; echo never',
        timeout: 1,
      }),
    );
    expect(result.status).toBe('timeout');
    expect(result.stdout).toBe('');
    expect(result.error).toMatch(/1 s/);
    expect(Date.now() - started).toBeLessThan(4_500);
    await waitFor('the timed-out commands to be gone', () =>
      liveProcesses(/^sleep 7\.(25|5)$/).length === 0 ? true : undefined,
    );
  });

  it('keeps concurrent commands apart: each answer goes to its own request', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api.post(`/api/v2/assets/${assetId}/exec`, {
          command: `sleep 0.$((${i} % 4)); echo job-${i}`,
        }),
      ),
    );
    expect(results.map((r) => dataOf<ExecResult>(r).stdout)).toEqual(
      Array.from({ length: 12 }, (_, i) => `job-${i}\n`),
    );
  });

  it('truncates output over 1 MiB and flags it', async () => {
    const result = dataOf<ExecResult>(
      await api.post(`/api/v2/assets/${assetId}/exec`, {
        command: "head -c 1500000 /dev/zero | tr '\\0' a",
      }),
    );
    expect(result.status).toBe('ok');
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBe(1024 * 1024);
    expect(/^a+$/.test(result.stdout)).toBe(true);
  });

  it('refuses bad input with 400 and runs nothing', async () => {
    const marker = path.join(work, 'exec-bad-input');
    const before = requestsSent({ type: 'exec.run' });
    for (const body of [
      { command: `touch ${marker}`, timeout: 0 },
      { command: `touch ${marker}`, timeout: 3601 },
      { command: '' },
      { command: `touch ${marker}`, extra: true },
      { command: 'x'.repeat(65_537) },
    ]) {
      expectError(await api.post(`/api/v2/assets/${assetId}/exec`, body), 400, 'validation');
    }
    expect(requestsSent({ type: 'exec.run' })).toBe(before);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('fans out to targets: the agent answers ok, an offline manual asset is an offline result', async () => {
    const offline = await createAsset({ name: 'offline-box', ip_addresses: ['198.51.100.9'] });
    const res = dataOf<ExecManyResult>(
      await api.post('/api/v2/exec', { targets: [assetId, offline.id], command: 'echo fan' }),
    );
    expect(res.summary).toEqual({ total: 2, ok: 1, timeout: 0, offline: 1, error: 0 });
    expect(res.results[0]).toMatchObject({ asset_id: assetId, status: 'ok', stdout: 'fan\n', exit_code: 0 });
    expect(res.results[1]).toMatchObject({ asset_id: offline.id, status: 'offline', exit_code: null });
    expect(res.results[1]?.error).toBe(`asset offline-box (${offline.id}) is offline (last seen: never)`);

    // A single offline target is 409 asset_offline with the same message.
    const single = await api.post(`/api/v2/assets/${offline.id}/exec`, { command: 'true' });
    expectError(single, 409, 'asset_offline');
    expect(single.json.message).toBe(`asset offline-box (${offline.id}) is offline (last seen: never)`);
  });

  it('fans out to a group', async () => {
    const offline = await createAsset({ name: 'offline-member' });
    const group = dataOf<{ id: string }>(
      await api.post('/api/v2/groups', { name: 'e2e-group', asset_ids: [assetId, offline.id] }),
      201,
    );
    const res = dataOf<ExecManyResult>(
      await api.post('/api/v2/exec', { group: group.id, command: 'echo group-$((6*7))' }),
    );
    expect(res.summary).toMatchObject({ total: 2, ok: 1, offline: 1 });
    const mine = res.results.find((r) => r.asset_id === assetId);
    expect(mine).toMatchObject({ status: 'ok', stdout: 'group-42\n' });
    expect(res.results.find((r) => r.asset_id === offline.id)?.status).toBe('offline');
  });

  it('refuses a fan-out naming an unknown target with 404, and nothing runs anywhere', async () => {
    const marker = path.join(work, 'fanout-marker');
    const before = requestsSent({ type: 'exec.run' });
    const res = await api.post('/api/v2/exec', {
      targets: [assetId, 'ast_00000000000000000000000000'],
      command: `touch ${marker}`,
    });
    expectError(res, 404, 'not_found');
    expect(res.json.message).toContain('ast_00000000000000000000000000');
    const emptyGroup = await api.post('/api/v2/exec', { targets: [], command: `touch ${marker}` });
    expectError(emptyGroup, 400, 'validation');
    await sleep(300);
    expect(requestsSent({ type: 'exec.run' })).toBe(before);
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe('files', () => {
  let dir: string;
  const bytes = Buffer.concat([
    Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
    Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i)),
    Buffer.from('\r\n\u0000tail', 'latin1'),
  ]);

  /** Every path under the directory with its size, as the test process sees the disk. */
  function snapshot(root: string): Record<string, number> {
    const out: Record<string, number> = {};
    const walk = (d: string) => {
      for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
        const full = path.join(d, entry.name);
        if (entry.isDirectory()) {
          out[`${full}/`] = 0;
          walk(full);
        } else out[full] = fs.statSync(full).size;
      }
    };
    walk(root);
    return out;
  }

  beforeAll(() => {
    dir = path.join(work, 'files');
  });

  it('makes directories (recursive only when asked)', async () => {
    dataOf(await api.post(`/api/v2/assets/${assetId}/files/mkdir`, { path: dir }));
    expect(fs.statSync(dir).isDirectory()).toBe(true);
    const nested = `${dir}/a/b/c`;
    const flat = await api.post(`/api/v2/assets/${assetId}/files/mkdir`, { path: nested });
    expect(flat.status).toBe(404);
    expect(fs.existsSync(`${dir}/a`)).toBe(false);
    dataOf(await api.post(`/api/v2/assets/${assetId}/files/mkdir`, { path: nested, recursive: true }));
    expect(fs.statSync(nested).isDirectory()).toBe(true);
  });

  it('writes binary content with every byte value and reads the same bytes back', async () => {
    const file = `${dir}/data.bin`;
    const written = dataOf<AgentRequestResult<'files.write'>>(
      await api.post(`/api/v2/assets/${assetId}/files/write`, {
        path: file,
        content_base64: bytes.toString('base64'),
      }),
    );
    expect(written).toEqual({ path: file, size: bytes.length });
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);

    const read = await api.get(`/api/v2/assets/${assetId}/files/read?path=${q(file)}`);
    expect(read.status).toBe(200);
    expect(read.headers['content-type']).toBe('application/octet-stream');
    expect(read.headers['content-disposition']).toContain('filename="data.bin"');
    expect(read.body.equals(bytes)).toBe(true);

    // Not overwritten unless asked.
    const again = await api.post(`/api/v2/assets/${assetId}/files/write`, {
      path: file,
      content_base64: Buffer.from('other').toString('base64'),
    });
    expectError(again, 409, 'conflict');
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    dataOf(
      await api.post(`/api/v2/assets/${assetId}/files/write`, {
        path: `${dir}/small.txt`,
        content_base64: Buffer.from('one').toString('base64'),
      }),
    );
    dataOf(
      await api.post(`/api/v2/assets/${assetId}/files/write`, {
        path: `${dir}/small.txt`,
        content_base64: Buffer.from('two').toString('base64'),
        overwrite: true,
      }),
    );
    expect(fs.readFileSync(`${dir}/small.txt`, 'utf8')).toBe('two');
  });

  it('round-trips a file of exactly the 8 MiB limit, and a name with spaces and non-ASCII characters', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4) big.writeUInt32LE((i * 2654435761) >>> 0, i);
    const file = `${dir}/big.bin`;
    dataOf(
      await api.post(`/api/v2/assets/${assetId}/files/write`, {
        path: file,
        content_base64: big.toString('base64'),
      }),
    );
    expect(fs.readFileSync(file).equals(big)).toBe(true);
    const read = await api.get(`/api/v2/assets/${assetId}/files/read?path=${q(file)}`);
    expect(read.status).toBe(200);
    expect(read.body.equals(big)).toBe(true);
    fs.rmSync(file);

    const odd = `${dir}/naïve report ✓ (1).txt`;
    dataOf(
      await api.post(`/api/v2/assets/${assetId}/files/write`, {
        path: odd,
        content_base64: Buffer.from('odd\n').toString('base64'),
      }),
    );
    expect(fs.readFileSync(odd, 'utf8')).toBe('odd\n');
    const oddRead = await api.get(`/api/v2/assets/${assetId}/files/read?path=${q(odd)}`);
    expect(oddRead.status).toBe(200);
    expect(oddRead.body.toString('utf8')).toBe('odd\n');
    const disposition = String(oddRead.headers['content-disposition']);
    expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent('naïve report ✓ ')}%281%29.txt`);
    expect(/^[\x20-\x7e]*$/.test(disposition)).toBe(true);
    dataOf(await api.delete(`/api/v2/assets/${assetId}/files?path=${q(odd)}`));
    expect(fs.existsSync(odd)).toBe(false);
  });

  it('lists a directory', async () => {
    const listing = dataOf<AgentRequestResult<'files.list'>>(
      await api.get(`/api/v2/assets/${assetId}/files?path=${q(dir)}`),
    );
    expect(listing.path).toBe(dir);
    expect(listing.truncated).toBe(false);
    const byName = new Map(listing.entries.map((e) => [e.name, e]));
    expect(byName.get('data.bin')).toMatchObject({ type: 'file', size: bytes.length });
    expect(byName.get('a')).toMatchObject({ type: 'directory' });
    expect(byName.get('small.txt')).toMatchObject({ type: 'file', size: 3 });
  });

  it('renames and copies, byte for byte', async () => {
    dataOf(
      await api.post(`/api/v2/assets/${assetId}/files/rename`, {
        from: `${dir}/data.bin`,
        to: `${dir}/moved.bin`,
      }),
    );
    expect(fs.existsSync(`${dir}/data.bin`)).toBe(false);
    expect(fs.readFileSync(`${dir}/moved.bin`).equals(bytes)).toBe(true);

    dataOf(
      await api.post(`/api/v2/assets/${assetId}/files/copy`, {
        from: `${dir}/moved.bin`,
        to: `${dir}/a/copy.bin`,
      }),
    );
    expect(fs.readFileSync(`${dir}/moved.bin`).equals(bytes)).toBe(true);
    expect(fs.readFileSync(`${dir}/a/copy.bin`).equals(bytes)).toBe(true);
    const read = await api.get(`/api/v2/assets/${assetId}/files/read?path=${q(`${dir}/a/copy.bin`)}`);
    expect(read.body.equals(bytes)).toBe(true);

    // A copy over an existing file needs overwrite.
    const clash = await api.post(`/api/v2/assets/${assetId}/files/copy`, {
      from: `${dir}/small.txt`,
      to: `${dir}/moved.bin`,
    });
    expectError(clash, 409, 'conflict');
    expect(fs.readFileSync(`${dir}/moved.bin`).equals(bytes)).toBe(true);
  });

  it('deletes a file, and a directory tree only when recursive is asked', async () => {
    dataOf(await api.delete(`/api/v2/assets/${assetId}/files?path=${q(`${dir}/small.txt`)}`));
    expect(fs.existsSync(`${dir}/small.txt`)).toBe(false);

    const tree = `${dir}/a`;
    const refused = await api.delete(`/api/v2/assets/${assetId}/files?path=${q(tree)}`);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(fs.existsSync(`${tree}/copy.bin`)).toBe(true);
    expect(fs.existsSync(`${tree}/b/c`)).toBe(true);

    dataOf(await api.delete(`/api/v2/assets/${assetId}/files?path=${q(tree)}&recursive=true`));
    expect(fs.existsSync(tree)).toBe(false);
    expect(fs.existsSync(`${dir}/moved.bin`)).toBe(true);
  });

  it('refuses traversal and relative paths with 400 and changes nothing', async () => {
    fs.writeFileSync(`${dir}/keep.txt`, 'keep');
    const before = snapshot(work);
    const filesSent = () =>
      sent.mock.calls.filter(([, type]) => typeof type === 'string' && type.startsWith('files.')).length;
    const sentBefore = filesSent();
    const base = `/api/v2/assets/${assetId}`;
    const attempts: [string, string, unknown?][] = [
      ['GET', `${base}/files?path=${q('/tmp/x/../../etc')}`],
      ['GET', `${base}/files/read?path=${q('/tmp/x/../../etc/passwd')}`],
      ['GET', `${base}/files/read?path=${q(`${dir}/../../../etc/passwd`)}`],
      ['GET', `${base}/files/read?path=${q('etc/passwd')}`],
      ['GET', `${base}/files/read?path=${q('./keep.txt')}`],
      ['GET', `${base}/files/read?path=${q(`${dir}/keep.txt\u0000.png`)}`],
      ['POST', `${base}/files/write`, { path: `${dir}/../escaped.bin`, content_base64: 'aGk=' }],
      ['POST', `${base}/files/write`, { path: 'escaped.bin', content_base64: 'aGk=' }],
      ['POST', `${base}/files/write`, { path: `${dir}/not-base64.bin`, content_base64: 'a' }],
      ['POST', `${base}/files/mkdir`, { path: `${dir}/../../escaped-dir`, recursive: true }],
      ['POST', `${base}/files/mkdir`, { path: 'relative/dir', recursive: true }],
      ['POST', `${base}/files/rename`, { from: `${dir}/keep.txt`, to: `${dir}/../moved-out.txt` }],
      ['POST', `${base}/files/rename`, { from: `${dir}/../files/keep.txt`, to: `${dir}/k2.txt` }],
      ['POST', `${base}/files/copy`, { from: '/etc/../etc/passwd', to: `${dir}/stolen` }],
      ['POST', `${base}/files/copy`, { from: `${dir}/keep.txt`, to: '../copy-out.txt' }],
      ['DELETE', `${base}/files?path=${q(`${dir}/sub/../keep.txt`)}`],
      ['DELETE', `${base}/files?path=${q('keep.txt')}`],
      ['DELETE', `${base}/files?path=${q('/')}&recursive=true`],
    ];
    for (const [method, url, body] of attempts) {
      const res = await api.request(method, url, body === undefined ? {} : { body });
      expect({ url, body, status: res.status, error: res.json.error }).toEqual({
        url,
        body,
        status: 400,
        error: 'validation',
      });
    }
    expect(filesSent()).toBe(sentBefore);
    expect(snapshot(work)).toEqual(before);
    expect(fs.existsSync(path.join(path.dirname(work), 'escaped-dir'))).toBe(false);
  });

  it('refuses an upload over the limit with 413 and writes nothing', async () => {
    const file = `${dir}/huge.bin`;
    const before = requestsSent({ type: 'files.write' });
    const res = await api.post(`/api/v2/assets/${assetId}/files/write`, {
      path: file,
      content_base64: Buffer.alloc(8 * 1024 * 1024 + 1, 7).toString('base64'),
    });
    expectError(res, 413, 'payload_too_large');
    expect(requestsSent({ type: 'files.write' })).toBe(before);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('refuses a request body over the upload limit with 413 before reading it all', async () => {
    const file = `${dir}/huger.bin`;
    const res = await api.post(`/api/v2/assets/${assetId}/files/write`, {
      path: file,
      content_base64: 'A'.repeat(fileUploadBodyBytes + 4),
    });
    expectError(res, 413, 'payload_too_large');
    expect(fs.existsSync(file)).toBe(false);
  });

  it('refuses to read a file over the limit with 413', async () => {
    const big = path.join(work, 'big-read.bin');
    fs.writeFileSync(big, Buffer.alloc(8 * 1024 * 1024 + 1));
    const res = await api.get(`/api/v2/assets/${assetId}/files/read?path=${q(big)}`);
    expectError(res, 413, 'payload_too_large');
    fs.rmSync(big);
  });
});

describe('processes', () => {
  type ProcessList = AgentRequestResult<'processes.list'>;

  it("lists processes, the agent's own among them", async () => {
    const list = dataOf<ProcessList>(await api.get(`/api/v2/assets/${assetId}/processes`));
    const self = list.processes.find((p) => p.pid === agent.pid);
    expect(self, `agent pid ${agent.pid} not in the list`).toBeDefined();
    expect(self?.command).toContain('svc-agent.js run');
    expect(self?.user).toBe(os.userInfo().username);
    expect(list.processes.length).toBeGreaterThan(3);
  });

  it('kills a process started through exec; it is gone afterwards', async () => {
    // The exec is still running while its sleep is killed: an exec ends what it leaves behind, so a
    // background job would not outlive it. The shell stays the sleep's parent and reaps it.
    const running = api.post(`/api/v2/assets/${assetId}/exec`, {
      command: "sh -c 'sleep 313; true'",
      timeout: 60,
    });
    const victim = await waitFor('the sleep in the process list', async () => {
      const list = dataOf<ProcessList>(await api.get(`/api/v2/assets/${assetId}/processes`));
      return list.processes.find((p) => p.command === 'sleep 313');
    });
    expect(fs.existsSync(`/proc/${victim.pid}`)).toBe(true);

    const killed = dataOf<AgentRequestResult<'processes.kill'>>(
      await api.post(`/api/v2/assets/${assetId}/processes/kill`, { pid: victim.pid }),
    );
    expect(killed).toEqual({ pid: victim.pid, signal: 'SIGTERM' });
    await waitFor('the sleep to be gone', async () => {
      const list = dataOf<ProcessList>(await api.get(`/api/v2/assets/${assetId}/processes`));
      return list.processes.some((p) => p.pid === victim.pid) ? undefined : true;
    });
    expect(fs.existsSync(`/proc/${victim.pid}`)).toBe(false);
    expect(dataOf<ExecResult>(await running)).toMatchObject({ status: 'ok', exit_code: 0 });
  });

  it('ends what a command leaves running (nohup, setsid) and says so in the result', async () => {
    const result = dataOf<ExecResult>(
      await api.post(`/api/v2/assets/${assetId}/exec`, {
        command: 'nohup sleep 314 >/dev/null 2>&1 & setsid sleep 315 >/dev/null 2>&1 & echo started',
      }),
    );
    expect(result).toMatchObject({
      status: 'ok',
      stdout: 'started\n',
      left_running: { count: 2, killed: true },
    });
    const list = dataOf<ProcessList>(await api.get(`/api/v2/assets/${assetId}/processes`));
    expect(list.processes.filter((p) => p.command === 'sleep 314' || p.command === 'sleep 315')).toEqual([]);
  });

  it('refuses bad kill input with 400 without asking the agent', async () => {
    const before = requestsSent({ type: 'processes.kill' });
    for (const body of [{ pid: 0 }, { pid: -1 }, { pid: agent.pid, signal: 'SIGFOO' }, { pid: 'x' }, {}]) {
      expectError(await api.post(`/api/v2/assets/${assetId}/processes/kill`, body), 400, 'validation');
    }
    expect(requestsSent({ type: 'processes.kill' })).toBe(before);
    // A pid that does not exist is the agent's clear 404.
    const missing = await api.post(`/api/v2/assets/${assetId}/processes/kill`, { pid: 4_194_000 });
    expectError(missing, 404, 'not_found');
  });
});

describe('services', () => {
  let manager: 'systemd' | 'none';

  it('lists services (or says there is no service manager)', async () => {
    const list = dataOf<AgentRequestResult<'services.list'>>(
      await api.get(`/api/v2/assets/${assetId}/services`),
    );
    expect(['systemd', 'none']).toContain(list.manager);
    manager = list.manager;
    if (list.manager === 'none') expect(list.services).toEqual([]);
    else expect(list.services.length).toBeGreaterThan(0);
  });

  it('start, stop and restart: a host without systemd says so clearly (409); with systemd, an unknown unit is 404', async () => {
    for (const action of ['start', 'stop', 'restart']) {
      const res = await api.post(`/api/v2/assets/${assetId}/services/svc-e2e-missing.service/${action}`);
      if (manager === 'none') {
        expectError(res, 409, 'conflict');
        expect(res.json.message).toBe(`asset ${assetName} (${assetId}): this host has no systemd`);
      } else {
        expectError(res, 404, 'not_found');
        expect(res.json.message).toContain('svc-e2e-missing.service');
      }
    }
    expect(requestsSent({ type: 'services.action' })).toBe(3);
  });

  it('refuses invalid service names with 400; the agent is never asked', async () => {
    const before = requestsSent({ type: 'services.action' });
    const names = ['a/b', 'a;reboot', 'a b', '-H', '--help', '$(reboot)', 'a|b', 'a\nb', 'x'.repeat(257)];
    for (const name of names) {
      const res = await api.post(`/api/v2/assets/${assetId}/services/${q(name)}/start`);
      expect({ name, status: res.status, error: res.json.error }).toEqual({
        name,
        status: 400,
        error: 'validation',
      });
    }
    // A raw '/' makes another path, which no route has.
    expect((await api.post(`/api/v2/assets/${assetId}/services/a/b/start`)).status).toBe(404);
    expect(requestsSent({ type: 'services.action' })).toBe(before);
    expect(fs.existsSync(guard.marker)).toBe(false);
  });
});

describe('system information', () => {
  it('network: interfaces with loopback among them', async () => {
    const net = dataOf<AgentRequestResult<'system.network'>>(
      await api.get(`/api/v2/assets/${assetId}/network`),
    );
    const lo = net.interfaces.find((i) => i.addresses.some((a) => a.address === '127.0.0.1'));
    expect(lo?.internal).toBe(true);
    for (const [name, infos] of Object.entries(os.networkInterfaces())) {
      expect(net.interfaces.map((i) => i.name)).toContain(name);
      expect(infos).toBeDefined();
    }
  });

  it('disks: the root filesystem with its size', async () => {
    const disks = dataOf<AgentRequestResult<'system.disks'>>(
      await api.get(`/api/v2/assets/${assetId}/disks`),
    );
    const root = disks.filesystems.find((f) => f.mount === '/');
    expect(root).toBeDefined();
    const stat = fs.statfsSync('/');
    expect(root?.size_bytes).toBe(stat.blocks * stat.bsize);
  });

  it('packages: the package manager of this host', async () => {
    const res = await api.get(`/api/v2/assets/${assetId}/packages`, { timeoutMs: 90_000 });
    const packages = dataOf<AgentRequestResult<'system.packages'>>(res);
    const hasDpkg = fs.existsSync('/var/lib/dpkg/status');
    if (hasDpkg) {
      expect(packages.manager).toBe('dpkg');
      expect(packages.packages.length).toBeGreaterThan(10);
      expect(packages.packages.every((p) => p.name.length > 0 && p.version.length > 0)).toBe(true);
    } else {
      expect(['rpm', 'apk', 'none']).toContain(packages.manager);
    }
  });

  it('cron: a valid list of jobs', async () => {
    const cron = dataOf<AgentRequestResult<'system.cron'>>(await api.get(`/api/v2/assets/${assetId}/cron`));
    expect(Array.isArray(cron.jobs)).toBe(true);
    for (const job of cron.jobs) {
      expect(job.schedule.length).toBeGreaterThan(0);
      expect(typeof job.command).toBe('string');
    }
  });

  it('users: root with uid 0', async () => {
    const users = dataOf<AgentRequestResult<'system.users'>>(
      await api.get(`/api/v2/assets/${assetId}/users`),
    );
    expect(users.users.find((u) => u.name === 'root')).toMatchObject({ uid: 0, gid: 0 });
  });

  it('logs: a file under /var/log, filtered; the journal answers or says it is absent', async () => {
    const candidates = ['/var/log/dpkg.log', '/var/log/alternatives.log', '/var/log/syslog'];
    const file = candidates.find((f) => fs.existsSync(f) && fs.statSync(f).size > 0);
    if (file) {
      const logs = dataOf<AgentRequestResult<'system.logs'>>(
        await api.get(`/api/v2/assets/${assetId}/logs?path=${q(file)}&limit=5`),
      );
      expect(logs.source).toContain('file');
      expect(logs.entries.length).toBeGreaterThan(0);
      expect(logs.entries.length).toBeLessThanOrEqual(5);
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      for (const entry of logs.entries) expect(lines).toContain(entry.message);
      // grep: only matching lines (smart case, like journalctl).
      const word = (lines.find((l) => /[a-z]{4,}/.test(l)) ?? '').match(/[a-z]{4,}/)?.[0] ?? 'status';
      const grepped = dataOf<AgentRequestResult<'system.logs'>>(
        await api.get(`/api/v2/assets/${assetId}/logs?path=${q(file)}&grep=${q(word)}&limit=50`),
      );
      expect(grepped.entries.length).toBeGreaterThan(0);
      for (const entry of grepped.entries) expect(entry.message.toLowerCase()).toContain(word);
      const nothing = dataOf<AgentRequestResult<'system.logs'>>(
        await api.get(`/api/v2/assets/${assetId}/logs?path=${q(file)}&grep=${q('zq-no-such-text-qz')}`),
      );
      expect(nothing.entries).toEqual([]);
    }
    const journal = await api.get(`/api/v2/assets/${assetId}/logs?source=journal&limit=3`, {
      timeoutMs: 90_000,
    });
    if (journal.status === 200) {
      const data = journal.json.data as AgentRequestResult<'system.logs'>;
      expect(data.source).toBe('journal');
      expect(data.entries.length).toBeLessThanOrEqual(3);
    } else {
      expectError(journal, 409, 'conflict');
      expect(journal.json.message).toMatch(/journal/);
    }
  });

  it('logs: a path outside /var/log is refused, and bad filters are 400', async () => {
    const outside = await api.get(`/api/v2/assets/${assetId}/logs?path=${q('/etc/passwd')}`);
    expectError(outside, 400, 'validation');
    expect(outside.json.message).toContain('/var/log');
    expect(outside.text).not.toContain('root:x:0:0');
    // Nor through a link under /var/log that points outside it.
    const link = `/var/log/svc-e2e-${process.pid}.log`;
    fs.symlinkSync('/etc/passwd', link);
    try {
      const viaLink = await api.get(`/api/v2/assets/${assetId}/logs?path=${q(link)}`);
      expectError(viaLink, 400, 'validation');
      expect(viaLink.json.message).toContain('must be under /var/log');
      expect(viaLink.text).not.toContain('root:x:0:0');
    } finally {
      fs.unlinkSync(link);
    }
    const before = requestsSent({ type: 'system.logs' });
    for (const query of [
      `path=${q('/var/log/../../etc/shadow')}`,
      `path=${q('var/log/syslog')}`,
      `source=journal&path=${q('/var/log/syslog')}`,
      'unit=-H',
      `unit=${q('a;b')}`,
      'since=yesterday-ish',
      'priority=9',
      'limit=0',
    ]) {
      const res = await api.get(`/api/v2/assets/${assetId}/logs?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
    }
    expect(requestsSent({ type: 'system.logs' })).toBe(before);
  });

  it('metrics: samples at the collect interval, and the overview counts the asset as reporting', async () => {
    const series = await waitFor(
      'metric samples',
      async () => {
        const s = dataOf<MetricsSeries>(await api.get(`/api/v2/assets/${assetId}/metrics`));
        return s.samples.length >= 2 ? s : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 500 },
    );
    expect(series.asset_id).toBe(assetId);
    const sample = series.samples[series.samples.length - 1];
    expect(sample?.memory_total_bytes).toBe(os.totalmem());
    expect(sample?.disk_total_bytes).toBeGreaterThan(0);
    expect(Math.abs(Date.parse(sample?.ts ?? '') - Date.now())).toBeLessThan(60_000);

    // A range that ends before the agent started has nothing.
    const old = dataOf<MetricsSeries>(
      await api.get(`/api/v2/assets/${assetId}/metrics?to=${q('2020-01-01T00:00:00Z')}`),
    );
    expect(old.samples).toEqual([]);
    for (const query of [
      'from=last-week',
      `from=${q('2030-01-01T00:00:00Z')}&to=${q('2020-01-01T00:00:00Z')}`,
      'limit=0',
    ]) {
      const res = await api.get(`/api/v2/assets/${assetId}/metrics?${query}`);
      expect({ query, status: res.status, error: res.json.error }).toEqual({
        query,
        status: 400,
        error: 'validation',
      });
    }

    // Counted as reporting: seen through a key that sees only this asset, and not through one that does not.
    const onlyAgent = owner.withKey(await createKey({ scopes: ['metrics:read'], allowed_assets: [assetId] }));
    const overview = dataOf<MetricsOverview>(await onlyAgent.get('/api/v2/metrics/overview'));
    expect(overview).toMatchObject({ assets_total: 1, assets_online: 1, assets_reporting: 1 });
    expect(overview.memory_used_percent_avg).toBeGreaterThan(0);
    const other = await createAsset({ name: 'metrics-other' });
    const onlyOther = owner.withKey(
      await createKey({ scopes: ['metrics:read'], allowed_assets: [other.id] }),
    );
    const none = dataOf<MetricsOverview>(await onlyOther.get('/api/v2/metrics/overview'));
    expect(none).toMatchObject({ assets_total: 1, assets_online: 0, assets_reporting: 0 });
    onlyAgent.close();
    onlyOther.close();
  });
});

describe('power', () => {
  it('reboot and shutdown are refused by the agent (power actions disabled): 409, nothing runs', async () => {
    for (const action of ['reboot', 'shutdown']) {
      const res = await api.post(`/api/v2/assets/${assetId}/${action}`);
      expectError(res, 409, 'conflict');
      expect(res.json.message).toBe(
        `asset ${assetName} (${assetId}): power actions are disabled on this agent`,
      );
    }
    expect(requestsSent({ type: 'power.reboot' })).toBe(1);
    expect(requestsSent({ type: 'power.shutdown' })).toBe(1);
    expect(fs.existsSync(guard.marker)).toBe(false);
    // Still here, still answering.
    const alive = dataOf<ExecResult>(
      await api.post(`/api/v2/assets/${assetId}/exec`, { command: 'echo up' }),
    );
    expect(alive.stdout).toBe('up\n');
  });

  it('wake sends the 102-byte magic packet from the hub when no agent shares the LAN', async () => {
    const sleeper = await createAsset({
      name: 'sleeper',
      mac_address: 'AA-BB-CC-DD-EE-0F',
      ip_addresses: ['198.51.100.7'],
    });
    const result = dataOf<WakeResult>(await api.post(`/api/v2/assets/${sleeper.id}/wake`));
    expect(result).toEqual({
      mac: 'aa:bb:cc:dd:ee:0f',
      sent_via: 'hub',
      relay_asset_id: null,
      target: `127.0.0.1:${udp.port}`,
    });
    const packet = await udp.next();
    expect(packet.length).toBe(102);
    expect(packet.equals(magicPacket('aa:bb:cc:dd:ee:0f'))).toBe(true);
    expect(packet.subarray(0, 6).equals(Buffer.alloc(6, 0xff))).toBe(true);
    expect(requestsSent({ type: 'wol.relay' })).toBe(0);
  });

  it('wake without a MAC address is 409 and sends nothing; reboot of an offline asset is 409 asset_offline', async () => {
    const packetsBefore = udp.packets.length;
    const nomac = await createAsset({ name: 'no-mac', ip_addresses: ['198.51.100.8'] });
    const res = await api.post(`/api/v2/assets/${nomac.id}/wake`);
    expectError(res, 409, 'conflict');
    expect(res.json.message).toContain('no MAC address');
    const reboot = await api.post(`/api/v2/assets/${nomac.id}/reboot`);
    expectError(reboot, 409, 'asset_offline');
    expect(reboot.json.message).toBe(`asset no-mac (${nomac.id}) is offline (last seen: never)`);
    await sleep(200);
    expect(udp.packets.length).toBe(packetsBefore);
  });
});

describe('refusals', () => {
  /** A call to every table route on this asset, with a valid body, as a real client would send it. */
  function everyRoute(
    id: string,
    marker: string,
  ): Record<string, { method: string; url: string; body?: unknown }> {
    const base = `/api/v2/assets/${id}`;
    const keep = path.join(work, 'refusal-keep.txt');
    return {
      'exec.single': { method: 'POST', url: `${base}/exec`, body: { command: `touch ${marker}` } },
      'exec.many': {
        method: 'POST',
        url: '/api/v2/exec',
        body: { targets: [id], command: `touch ${marker}` },
      },
      'files.list': { method: 'GET', url: `${base}/files?path=${q(work)}` },
      'files.read': { method: 'GET', url: `${base}/files/read?path=${q(keep)}` },
      'files.write': {
        method: 'POST',
        url: `${base}/files/write`,
        body: { path: marker, content_base64: 'aGk=' },
      },
      'files.mkdir': { method: 'POST', url: `${base}/files/mkdir`, body: { path: marker } },
      'files.rename': { method: 'POST', url: `${base}/files/rename`, body: { from: keep, to: marker } },
      'files.copy': { method: 'POST', url: `${base}/files/copy`, body: { from: keep, to: marker } },
      'files.delete': { method: 'DELETE', url: `${base}/files?path=${q(keep)}` },
      'system.processes': { method: 'GET', url: `${base}/processes` },
      'system.killProcess': { method: 'POST', url: `${base}/processes/kill`, body: { pid: 4_194_001 } },
      'system.services': { method: 'GET', url: `${base}/services` },
      'system.startService': { method: 'POST', url: `${base}/services/cron.service/start` },
      'system.stopService': { method: 'POST', url: `${base}/services/cron.service/stop` },
      'system.restartService': { method: 'POST', url: `${base}/services/cron.service/restart` },
      'system.network': { method: 'GET', url: `${base}/network` },
      'system.disks': { method: 'GET', url: `${base}/disks` },
      'system.packages': { method: 'GET', url: `${base}/packages` },
      'system.cron': { method: 'GET', url: `${base}/cron` },
      'system.users': { method: 'GET', url: `${base}/users` },
      'system.logs': { method: 'GET', url: `${base}/logs?source=journal&limit=1` },
      'metrics.history': { method: 'GET', url: `${base}/metrics` },
      'power.wake': { method: 'POST', url: `${base}/wake` },
      'power.reboot': { method: 'POST', url: `${base}/reboot` },
      'power.shutdown': { method: 'POST', url: `${base}/shutdown` },
    };
  }

  async function callAll(
    client: HubClient,
    calls: Record<string, { method: string; url: string; body?: unknown }>,
    names: readonly string[],
  ): Promise<Record<string, { status: number; error: string | undefined }>> {
    const out: Record<string, { status: number; error: string | undefined }> = {};
    for (const name of names) {
      const call = calls[name];
      if (!call) throw new Error(`no sample call for ${name}`);
      const res = await client.request(
        call.method,
        call.url,
        call.body === undefined ? {} : { body: call.body },
      );
      out[name] = { status: res.status, error: res.json.error };
    }
    return out;
  }

  it('the sample calls cover every route of the four tables', () => {
    const calls = everyRoute(assetId, '/nonexistent');
    expect(Object.keys(calls).sort()).toEqual(tableRoutes.map((r) => r.name).sort());
  });

  it('a key whose allowed_assets names another asset gets 404 for the agent asset on every route; nothing is sent', async () => {
    fs.writeFileSync(path.join(work, 'refusal-keep.txt'), 'keep');
    const other = await createAsset({ name: 'the-allowed-one' });
    const restricted = owner.withKey(await createKey({ allowed_assets: [other.id] }));
    const marker = path.join(work, 'allowed-assets-marker');
    const before = requestsSent({ asset: assetId });
    const answers = await callAll(
      restricted,
      everyRoute(assetId, marker),
      tableRoutes.map((r) => r.name),
    );
    const expected = Object.fromEntries(
      tableRoutes.map((r) => [r.name, { status: 404, error: 'not_found' }]),
    );
    expect(answers).toEqual(expected);
    await sleep(300);
    expect(requestsSent({ asset: assetId })).toBe(before);
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.readFileSync(path.join(work, 'refusal-keep.txt'), 'utf8')).toBe('keep');
    // The same key works on the asset it may see (here: offline, so 409 rather than 404).
    const own = await restricted.post(`/api/v2/assets/${other.id}/exec`, { command: 'true' });
    expectError(own, 409, 'asset_offline');
    // A group holding both is its members: one of them is hidden from the key, so the whole fan-out is 404.
    const group = dataOf<{ id: string }>(
      await api.post('/api/v2/groups', { name: 'mixed', asset_ids: [assetId, other.id] }),
      201,
    );
    const viaGroup = await restricted.post('/api/v2/exec', { group: group.id, command: `touch ${marker}` });
    expectError(viaGroup, 404, 'not_found');
    await sleep(300);
    expect(requestsSent({ asset: assetId })).toBe(before);
    expect(fs.existsSync(marker)).toBe(false);
    restricted.close();
  });

  it('an unknown asset id is 404 on every route, and nothing is sent', async () => {
    const unknown = 'ast_00000000000000000000000001';
    const marker = path.join(work, 'unknown-asset-marker');
    const before = requestsSent();
    const names = tableRoutes.map((r) => r.name);
    const answers = await callAll(api, everyRoute(unknown, marker), names);
    expect(answers).toEqual(Object.fromEntries(names.map((n) => [n, { status: 404, error: 'not_found' }])));
    expect(requestsSent()).toBe(before);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('a viewer gets 403 read_only_role on every mutation (exec, files, processes, services, power) and may read', async () => {
    const viewer = owner.withKey(await createKey({ role: 'viewer', scopes: ['*'] }));
    const marker = path.join(work, 'viewer-marker');
    const before = requestsSent({ asset: assetId });
    const mutations = tableRoutes.filter((r) => r.method !== 'GET').map((r) => r.name);
    expect(mutations).toEqual(
      expect.arrayContaining(['exec.single', 'files.write', 'power.reboot', 'power.wake']),
    );
    const answers = await callAll(viewer, everyRoute(assetId, marker), mutations);
    expect(answers).toEqual(
      Object.fromEntries(mutations.map((n) => [n, { status: 403, error: 'read_only_role' }])),
    );
    expect(requestsSent({ asset: assetId })).toBe(before);
    expect(fs.existsSync(marker)).toBe(false);
    // Reads are what a viewer is for.
    const listing = await viewer.get(`/api/v2/assets/${assetId}/files?path=${q(work)}`);
    expect(listing.status).toBe(200);
    expect(requestsSent({ asset: assetId, type: 'files.list' })).toBeGreaterThan(0);
    viewer.close();
  });

  it('a key without files:read gets 403 insufficient_scope on list and read; a key with none of the scopes on every route', async () => {
    const noFiles = owner.withKey(await createKey({ scopes: scopes.filter((s) => s !== 'files:read') }));
    const before = requestsSent({ asset: assetId });
    for (const url of [
      `/api/v2/assets/${assetId}/files?path=${q(work)}`,
      `/api/v2/assets/${assetId}/files/read?path=${q(path.join(work, 'refusal-keep.txt'))}`,
    ]) {
      const res = await noFiles.get(url);
      expectError(res, 403, 'insufficient_scope');
      expect(res.json.message).toContain('files:read');
    }
    const readOnlyAssets = owner.withKey(await createKey({ scopes: ['assets:read'] }));
    const names = tableRoutes.map((r) => r.name);
    const answers = await callAll(
      readOnlyAssets,
      everyRoute(assetId, path.join(work, 'scope-marker')),
      names,
    );
    expect(answers).toEqual(
      Object.fromEntries(names.map((n) => [n, { status: 403, error: 'insufficient_scope' }])),
    );
    expect(requestsSent({ asset: assetId })).toBe(before);
    // The same key without files:read may still exec: the refusal is about the scope, not the key.
    const exec = dataOf<ExecResult>(
      await noFiles.post(`/api/v2/assets/${assetId}/exec`, { command: 'echo ok' }),
    );
    expect(exec.stdout).toBe('ok\n');
    noFiles.close();
    readOnlyAssets.close();
  });
});

describe('a hostile agent', () => {
  let hostileId: string;
  let credential: string;
  const channelUrl = () => `wss://127.0.0.1:${String(t.servers?.httpsPort)}${agentChannelPath}`;

  beforeAll(async () => {
    const token = dataOf<EnrollmentTokenCreated>(
      await owner.post('/api/v2/enrollment-tokens', { name: 'hostile', max_uses: 1 }),
      201,
    );
    const enrolled = dataOf<EnrollResponse>(
      await owner.post(
        '/api/v1/enroll',
        { token: token.token, hostname: 'hostile-host', platform: 'linux' },
        { key: null },
      ),
      201,
    );
    hostileId = enrolled.asset_id;
    credential = enrolled.credential;
  });

  async function connectHostile(handlers: ConstructorParameters<typeof FakeAgent>[0]['handlers'] = {}) {
    const fake = new FakeAgent({ url: channelUrl(), credential, ca: trust.caPem, handlers });
    await fake.start();
    return fake;
  }

  async function realAgentStillWorks(tag: string): Promise<void> {
    const asset = dataOf<{ status: string }>(await api.get(`/api/v2/assets/${assetId}`));
    expect(asset.status).toBe('online');
    const res = dataOf<ExecResult>(
      await api.post(`/api/v2/assets/${assetId}/exec`, { command: `echo ${tag}` }),
    );
    expect(res).toMatchObject({ status: 'ok', stdout: `${tag}\n` });
  }

  it('malformed frames close only the hostile connection (1008, 1009 when oversized); the real agent keeps working', async () => {
    const bad: [string, (fake: FakeAgent) => void][] = [
      [
        'not JSON',
        (f) => {
          f.sendRaw('{"v":1,"type":');
        },
      ],
      [
        'binary',
        (f) => {
          f.sendRaw(Buffer.from([0, 1, 2, 255]));
        },
      ],
      [
        'wrong version',
        (f) => {
          f.sendRaw(JSON.stringify({ v: 2, type: 'heartbeat', id: 'x', payload: {} }));
        },
      ],
      [
        'no envelope',
        (f) => {
          f.sendRaw(JSON.stringify({ hello: 'there' }));
        },
      ],
      [
        'oversized id',
        (f) => {
          f.send('heartbeat', { uptime_s: 1, load1: 0 }, 'i'.repeat(65));
        },
      ],
      [
        'unknown type',
        (f) => {
          f.send('exec.run', { command: 'reboot' });
        },
      ],
      [
        'hello twice',
        (f) => {
          f.send('hello', {});
        },
      ],
      [
        'flood',
        (f) => {
          for (let i = 0; i < 260; i++) f.heartbeat(i);
        },
      ],
      [
        'frame over 16 MiB',
        (f) => {
          f.send('heartbeat', { uptime_s: 1, load1: 0, pad: 'x'.repeat(16 * 1024 * 1024) });
        },
      ],
    ];
    // Every violation is a policy close (1008), except a frame over the size limit: 1009 "message too big".
    const expectedCode = (what: string) => (what === 'frame over 16 MiB' ? 1009 : 1008);
    for (const [what, misbehave] of bad) {
      const fake = await connectHostile();
      misbehave(fake);
      const closed = await Promise.race([fake.closed(), sleep(10_000).then(() => null)]);
      expect({ what, code: closed?.code }).toEqual({ what, code: expectedCode(what) });
      await realAgentStillWorks(what.replace(/\W/g, '-'));
    }
    expect(fs.existsSync(guard.marker)).toBe(false);
  });

  it('garbage the hostile agent sends as metrics, heartbeats or stray results is dropped; its session stays up', async () => {
    const fake = await connectHostile();
    fake.send('metrics', { samples: [{ ts: 'yesterday', cpu_percent: -5 }] });
    fake.send('heartbeat', { uptime_s: 'long' });
    fake.send('result', { ok: true, data: { pid: 1 } }, 'r-nothing-pending');
    await sleep(300);
    const hostile = dataOf<{ status: string }>(await api.get(`/api/v2/assets/${hostileId}`));
    expect(hostile.status).toBe('online');
    const samples = dataOf<MetricsSeries>(await api.get(`/api/v2/assets/${hostileId}/metrics`));
    expect(samples.samples).toEqual([]);
    await realAgentStillWorks('after-garbage');
    fake.close();
    await fake.closed();
  });

  it("cannot answer the real agent's requests: a forged result with the real request id is ignored", async () => {
    const fake = await connectHostile();
    // The hub's own outgoing frames (same process): the id of the exec request the real agent is working on.
    const outgoing = vi.spyOn(WebSocket.prototype, 'send');
    const command = 'sleep 2; echo genuine';
    const pending = api.post(`/api/v2/assets/${assetId}/exec`, { command });
    const realId = await waitFor('the exec request to go out', () => {
      for (const [data] of outgoing.mock.calls) {
        if (typeof data !== 'string' || !data.includes('genuine')) continue;
        const frame = JSON.parse(data) as { type: string; id: string; payload: { command?: string } };
        if (frame.type === 'exec.run' && frame.payload.command === command) return frame.id;
      }
      return undefined;
    });
    outgoing.mockRestore();
    const forged = {
      ok: true,
      data: {
        exit_code: 0,
        signal: null,
        stdout: 'forged\n',
        stderr: '',
        truncated: false,
        timed_out: false,
        duration_ms: 1,
      },
    };
    fake.send('result', forged, realId);
    fake.send('result', { ok: false, error: { code: 'failed', message: 'forged failure' } }, realId);
    const result = dataOf<ExecResult>(await pending);
    expect(result).toMatchObject({ status: 'ok', exit_code: 0, stdout: 'genuine\n' });
    // Sending a result for a request that was never its own is noise, not a violation: the forger stays.
    const hostile = dataOf<{ status: string }>(await api.get(`/api/v2/assets/${hostileId}`));
    expect(hostile.status).toBe('online');
    fake.close();
    await fake.closed();
  });

  it('a malformed answer fails only its own request (502); the offline hostile asset is 409 with its last-seen time', async () => {
    const fake = await connectHostile({
      // Not a disks result at all.
      'system.disks': () => ({ filesystems: 'all of them' }) as unknown as AgentRequestResult<'system.disks'>,
    });
    const res = await api.get(`/api/v2/assets/${hostileId}/disks`);
    expectError(res, 502, 'upstream_error');
    expect(res.json.message).toContain('malformed');
    const real = await api.get(`/api/v2/assets/${assetId}/disks`);
    expect(real.status).toBe(200);
    fake.close();
    await fake.closed();

    const offline = await waitFor('the hostile asset offline', async () => {
      const r = await api.post(`/api/v2/assets/${hostileId}/exec`, { command: 'true' });
      return r.status === 409 ? r : undefined;
    });
    expectError(offline, 409, 'asset_offline');
    expect(offline.json.message).toMatch(
      new RegExp(
        `^asset hostile-host \\(${hostileId}\\) is offline \\(last seen: \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)$`,
      ),
    );
    await realAgentStillWorks('after-hostile');
  });
});

describe('the agent stops', () => {
  it('on SIGTERM the agent exits cleanly and the hub shows it offline with its last-seen time', async () => {
    await agent.stop('SIGTERM', 10_000);
    expect(await agent.exited).toEqual({ code: 0, signal: null });
    const offline = await waitFor('the asset offline', async () => {
      const asset = dataOf<{
        status: string;
        last_seen_at: string | null;
        agent: { connected: boolean } | null;
      }>(await api.get(`/api/v2/assets/${assetId}`));
      return asset.status === 'offline' ? asset : undefined;
    });
    expect(offline.agent?.connected ?? false).toBe(false);
    expect(Math.abs(Date.parse(offline.last_seen_at ?? '') - Date.now())).toBeLessThan(120_000);
    const res = await api.post(`/api/v2/assets/${assetId}/exec`, { command: 'true' });
    expectError(res, 409, 'asset_offline');
    expect(res.json.message).toBe(
      `asset ${assetName} (${assetId}) is offline (last seen: ${new Date(offline.last_seen_at ?? '').toISOString()})`,
    );
    const agents = dataOf<{ asset_id: string }[]>(await owner.get('/api/v2/hub/agents'));
    expect(agents.map((a) => a.asset_id)).not.toContain(assetId);
  });
});

describe('coverage', () => {
  it('every route of the four tables was called through HTTPS and answered by the hub and the agent', () => {
    // Reboot, shutdown and (without systemd) service actions are refused by the agent itself: 409 from the agent.
    const agentRefusals = new Set([
      'power.reboot',
      'power.shutdown',
      'system.startService',
      'system.stopService',
      'system.restartService',
    ]);
    const missing = tableRoutes
      .map((r) => r.name)
      .filter(
        (name) =>
          !api.calls.some(
            (c) =>
              c.route === name &&
              (c.status < 300 || (agentRefusals.has(name) && (c.status === 409 || c.status === 404))),
          ),
      );
    expect(missing).toEqual([]);
  });
});
