/**
 * End to end (issue 18, "Done when": the `svc` CLI's commands against a real hub with a real agent): a hub
 * serving HTTPS with its built-in CA on loopback, the real svc-agent as its own process, and the built CLI
 * (`node packages/cli/bin/svc.js`, dist/svc.mjs) run as a process for every command, as a user or a script
 * would: what it prints, what it writes, and the exit codes of docs/decisions/0036-cli-exit-codes.md.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ApiKey,
  ApiKeyCreated,
  EnrollmentTokenCreated,
  ExecResult,
  MaintenanceWindow,
  Snippet,
  User,
  Whoami,
} from '@svc/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestHub, type TestHub } from '@svc/testkit';
import {
  dataOf,
  enrollAgent,
  fetchHubTrust,
  freePort,
  HubClient,
  killChildren,
  powerGuard,
  RealTimeClock,
  runAgent,
  sleep,
  waitOnline,
  type AgentProcess,
  type HubTrust,
} from './support.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const svcLauncher = path.join(repoRoot, 'packages/cli/bin/svc.js');

let t: TestHub;
let work: string;
let trust: HubTrust;
let hubUrl: string;
let owner: HubClient;
let adminKey: string;
let agent: AgentProcess;
let assetId: string;
const assetName = 'e2e-cli-agent';
let offlineId: string;
let groupId: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface SvcOptions {
  env?: Record<string, string>;
  input?: string;
  timeoutMs?: number;
}

/** A process's environment without anything of the test runner's own svc settings. */
function baseEnv(): NodeJS.ProcessEnv {
  const own = new Set(['SVC_HUB_URL', 'SVC_API_KEY', 'SVC_CA_FILE', 'SVC_CONFIG']);
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !own.has(name)));
  return { ...env, XDG_CONFIG_HOME: path.join(work, 'config'), HOME: work };
}

/** `svc …` as its own process, to its end (bounded), from the work directory. */
function svc(args: string[], options: SvcOptions = {}): Promise<Run> {
  const child = spawn(process.execPath, [svcLauncher, ...args], {
    cwd: work,
    env: { ...baseEnv(), ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  child.stdin.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(timer);
      // The streams may still hold their last chunk when the process has exited.
      setImmediate(() => {
        resolve({ code, stdout, stderr });
      });
    });
  });
}

function ndjson(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-cli-'));
  t = await startTestHub({
    env: { SVC_TLS_MODE: 'auto' },
    listen: true,
    injectAsHttps: true,
    clock: new RealTimeClock(),
  });
  hubUrl = `https://127.0.0.1:${String(t.servers?.httpsPort)}`;
  trust = await fetchHubTrust(hubUrl);
  owner = new HubClient(hubUrl, trust.caPem, t.ownerKey);
  adminKey = dataOf<ApiKeyCreated>(
    await owner.post('/api/v2/keys', { name: 'cli admin', role: 'admin', scopes: ['*'] }),
    201,
  ).raw_key;

  const token = dataOf<EnrollmentTokenCreated>(
    await owner.post('/api/v2/enrollment-tokens', { name: 'e2e cli agent', max_uses: 1 }),
    201,
  );
  const configPath = path.join(work, 'agent', 'settings.json');
  const enrolled = await enrollAgent({
    hubUrl,
    token: token.token,
    caFingerprint: trust.caFingerprint,
    configPath,
    hostname: assetName,
  });
  if (enrolled.code !== 0) throw new Error(`svc-agent enroll failed: ${enrolled.output}`);
  assetId = (JSON.parse(fs.readFileSync(configPath, 'utf8')) as { asset_id: string }).asset_id;
  const guard = powerGuard(work);
  agent = runAgent(configPath, {
    SVC_AGENT_ALLOW_POWER_ACTIONS: 'false',
    PATH: `${guard.binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  });
  try {
    await waitOnline(owner, assetId, 40_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nagent output:\n${agent.output()}`, { cause: error });
  }
  offlineId = dataOf<{ id: string }>(await owner.post('/api/v2/assets', { name: 'e2e-cli-offline' }), 201).id;
  groupId = dataOf<{ id: string }>(
    await owner.post('/api/v2/groups', { name: 'cli-group', asset_ids: [assetId, offlineId] }),
    201,
  ).id;
}, 90_000);

afterAll(async () => {
  const started = { agent, owner, t, work } as Partial<{
    agent: AgentProcess;
    owner: HubClient;
    t: TestHub;
    work: string;
  }>;
  await started.agent?.stop('SIGTERM', 3_000);
  await killChildren();
  started.owner?.close();
  await started.t?.close();
  if (started.work) fs.rmSync(started.work, { recursive: true, force: true });
}, 30_000);

describe('svc login', () => {
  it("refuses the hub's own CA without a pin when it cannot ask (exit 5), and never saves the key", async () => {
    const run = await svc(['--hub', hubUrl, 'login', '--key-stdin'], { input: adminKey });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('presents a certificate from its own CA');
    expect(run.stderr).toContain('--ca-fingerprint');
    expect(fs.existsSync(path.join(work, 'config', 'svc', 'config.json'))).toBe(false);
  });

  it('refuses a CA that does not match the pin (exit 5)', async () => {
    const wrong = 'AA:'.repeat(31) + 'AA';
    const run = await svc(['--hub', hubUrl, 'login', '--key-stdin', '--ca-fingerprint', wrong], {
      input: adminKey,
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('does not match the pinned');
  });

  it('refuses a key the hub does not know (exit 3)', async () => {
    const run = await svc(
      ['--hub', hubUrl, 'login', '--key-stdin', '--ca-fingerprint', trust.caFingerprint],
      {
        input: `${adminKey.slice(0, -4)}AAAA`,
      },
    );
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('the hub refused');
  });

  it('pins the CA, checks the key, saves both with mode 0600, and prints no key', async () => {
    const run = await svc(
      ['--hub', hubUrl, 'login', '--key-stdin', '--ca-fingerprint', trust.caFingerprint],
      {
        input: `${adminKey}\n`,
      },
    );
    expect(run.stderr).toContain(`signed in to ${hubUrl} as cli admin (admin)`);
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(adminKey);
    const file = path.join(work, 'config', 'svc', 'config.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { hub_url: string; ca_pem: string };
    expect(saved.hub_url).toBe(hubUrl);
    expect(saved.ca_pem.trim()).toBe(trust.caPem.trim());
  });

  it('at a terminal, shows the CA fingerprint, asks, and reads the key without echoing it', async () => {
    const configHome = path.join(work, 'config-interactive');
    const line = [process.execPath, svcLauncher, '--hub', hubUrl, 'login'].join(' ');
    const child = spawn('script', ['--quiet', '--return', '--command', line, '/dev/null'], {
      cwd: work,
      env: { ...baseEnv(), XDG_CONFIG_HOME: configHome },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    const answered = new Set<string>();
    child.stdout.on('data', (c: Buffer) => {
      screen += c.toString('utf8');
      // Each answer only once its question is on the screen, as a person types it.
      if (screen.includes('[y/N]') && !answered.has('ca')) {
        answered.add('ca');
        child.stdin.write('y\r');
      }
      if (screen.includes('API key:') && !answered.has('key')) {
        answered.add('key');
        child.stdin.write(`${adminKey}\r`);
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(timer);
    expect(screen).toContain(trust.caFingerprint);
    expect(screen).toContain(`signed in to ${hubUrl} as cli admin (admin)`);
    expect(code).toBe(0);
    expect(screen).not.toContain(adminKey);
    const saved = path.join(configHome, 'svc', 'config.json');
    expect(fs.statSync(saved).mode & 0o777).toBe(0o600);
  });

  it('then works from the saved config alone', async () => {
    const run = await svc(['--json', 'whoami']);
    expect(run.code).toBe(0);
    const me = JSON.parse(run.stdout) as Whoami;
    expect(me).toMatchObject({ role: 'admin', key_name: 'cli admin' });
  });

  it('refuses a config file others can read (exit 3)', async () => {
    const file = path.join(work, 'config', 'svc', 'config.json');
    fs.chmodSync(file, 0o644);
    const run = await svc(['whoami']);
    fs.chmodSync(file, 0o600);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('refusing to use');
    expect(run.stderr).toContain('chmod 600');
  });

  it('never sends the saved key to another hub given with --hub', async () => {
    const port = await freePort();
    const run = await svc(['--hub', `https://127.0.0.1:${String(port)}`, 'whoami']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`no API key for https://127.0.0.1:${String(port)}`);
  });
});

describe('svc mcp', () => {
  it('bridges an MCP client on stdio to the hub with the saved login: tools listed, a command run', async () => {
    const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [svcLauncher, 'mcp'],
      cwd: work,
      env: Object.fromEntries(
        Object.entries(baseEnv()).filter((entry): entry is [string, string] => entry[1] !== undefined),
      ),
      stderr: 'pipe',
    });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('exec_single');
      const ran = await client.callTool({
        name: 'exec_single',
        arguments: { id: assetId, command: 'echo from-mcp' },
      });
      expect(ran.isError).toBeFalsy();
      expect(ran.structuredContent).toMatchObject({ data: { status: 'ok', stdout: 'from-mcp\n' } });
    } finally {
      await client.close();
    }
  });

  it("answers the MCP Inspector's CLI over HTTPS, trusting the hub's CA", async () => {
    const caFile = path.join(work, 'hub-ca.pem');
    fs.writeFileSync(caFile, trust.caPem);
    const inspector = path.join(repoRoot, 'node_modules/.bin/mcp-inspector-cli');
    // inspector-cli 1.0.3 checks for its package.json relative to the working directory but imports it
    // relative to its module: run from its build directory, where both agree.
    const inspectorDir = path.join(repoRoot, 'node_modules/@modelcontextprotocol/inspector-cli/build');
    const run = (method: string, extra: string[] = []) =>
      new Promise<Run>((resolve) => {
        const child = spawn(
          inspector,
          ['--cli', `${hubUrl}/mcp`, '--transport', 'http', '--method', method, ...extra],
          {
            cwd: inspectorDir,
            env: { ...baseEnv(), NODE_EXTRA_CA_CERTS: caFile },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.once('exit', (code) => {
          clearTimeout(timer);
          setImmediate(() => {
            resolve({ code, stdout, stderr });
          });
        });
      });
    const auth = ['--header', `Authorization: Bearer ${adminKey}`];
    const listed = await run('tools/list', auth);
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    const tools = (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(tools).toContain('assets_list');
    const called = await run('tools/call', [
      ...auth,
      '--tool-name',
      'assets_get',
      '--tool-arg',
      `id=${assetId}`,
    ]);
    expect(called.code, called.stdout + called.stderr).toBe(0);
    expect(called.stdout).toContain(assetName);
    const refused = await run('tools/list');
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain('401');
  });
});

describe('svc assets', () => {
  it('lists assets as a table, and as JSON, filtered by status', async () => {
    const table = await svc(['assets', 'ls']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+PLATFORM/);
    expect(table.stdout).toMatch(new RegExp(`${assetName}\\s+online\\s+linux`));
    const all = JSON.parse((await svc(['--json', 'assets', 'ls'])).stdout) as { id: string }[];
    expect(all.map((a) => a.id).sort()).toEqual([assetId, offlineId].sort());
    const online = await svc(['--json', 'assets', 'ls', '--status', 'online']);
    expect((JSON.parse(online.stdout) as { id: string }[]).map((a) => a.id)).toEqual([assetId]);
  });

  it('shows one asset by name or id; an unknown one is exit 4', async () => {
    const byName = await svc(['assets', 'show', assetName]);
    expect(byName.code).toBe(0);
    expect(byName.stdout).toContain(`id:           ${assetId}`);
    expect(byName.stdout).toMatch(/agent:\s+connected, version/);
    const byId = await svc(['--json', 'assets', 'show', assetId]);
    expect((JSON.parse(byId.stdout) as { name: string }).name).toBe(assetName);
    const missing = await svc(['assets', 'show', 'no-such-asset']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('no asset "no-such-asset"');
    const gone = await svc(['--json', 'assets', 'show', 'ast_00000000000000000000000000']);
    expect(gone.code).toBe(4);
    expect(JSON.parse(gone.stderr)).toMatchObject({
      error: { exit_code: 4, hub_error: 'not_found', request_id: expect.stringMatching(/^req_/) as string },
    });
  });

  it('says what depends on an asset; a review of an unknown incident is exit 4', async () => {
    dataOf(await owner.post('/api/v2/dependencies/links', { from: offlineId, to: assetId }), 201);
    const radius = await svc(['assets', 'blast-radius', assetName]);
    expect(radius.code, radius.stderr).toBe(0);
    expect(radius.stdout).toMatch(/^1 dependent \(1 directly; 1 asset, \d+ containers?\)/);
    expect(radius.stdout).toMatch(/e2e-cli-offline\s+host\s+1\s+declared/);
    const json = await svc(['--json', 'assets', 'blast-radius', assetId, '--depth', '2']);
    expect(JSON.parse(json.stdout)).toMatchObject({ assets: 1, max_depth: 2 });
    expect((await svc(['assets', 'blast-radius', assetId, '--depth', '99'])).code).toBe(2);
    const missing = await svc(['incidents', 'review', 'inc_00000000000000000000000000', '--markdown']);
    expect(missing.code).toBe(4);
    expect(missing.stdout).toBe('');
  });
});

describe('svc exec', () => {
  it("runs a command on the agent and prints the target's output (exit 0)", async () => {
    const run = await svc(['exec', assetName, '--', 'printf', '%s|', 'a b', "it's"]);
    expect(run.stderr).toContain('1 target: 1 exited 0');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^==> ${assetName}: exit 0 \\(\\d+ ms\\)\\na b\\|it's\\|\\n$`));
  });

  it('exits 1 when a target exits non-zero, with NDJSON lines under --json', async () => {
    const run = await svc(['--json', 'exec', assetId, '--', 'echo out; echo err >&2; exit 3']);
    expect(run.code).toBe(1);
    const lines = ndjson(run.stdout);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      asset_id: assetId,
      status: 'ok',
      exit_code: 3,
      stdout: 'out\n',
      stderr: 'err\n',
    });
    expect(lines[1]).toEqual({ summary: { total: 1, ok: 1, timeout: 0, offline: 0, error: 0 } });
  });

  it('runs on a group: each member answers, the offline one makes it exit 1', async () => {
    const run = await svc(['--json', 'exec', '--group', 'cli-group', '--', 'echo hi']);
    expect(run.code).toBe(1);
    const results = ndjson(run.stdout).slice(0, -1) as ExecResult[];
    expect(results.map((r) => [r.asset_id, r.status]).sort()).toEqual(
      [
        [assetId, 'ok'],
        [offlineId, 'offline'],
      ].sort(),
    );
    const human = await svc(['exec', '--group', groupId, '--', 'echo hi']);
    expect(human.stdout).toContain(`==> ${assetName}: exit 0`);
    expect(human.stdout).toContain('==> e2e-cli-offline: offline');
    expect(human.stderr).toContain('2 targets: 1 exited 0, 1 offline');
    // Not a terminal: no progress line.
    expect(human.stderr).not.toContain('[1/2]');
  });

  it('draws a progress line on a terminal while a fan-out runs', async () => {
    // script(1) gives the CLI a pseudo-terminal for stdin, stdout and stderr.
    const line = [process.execPath, svcLauncher, 'exec', '--group', 'cli-group', '--', "'echo hi'"].join(' ');
    const run = await new Promise<Run>((resolve) => {
      const child = spawn('script', ['--quiet', '--return', '--command', line, '/dev/null'], {
        cwd: work,
        env: baseEnv(),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        setImmediate(() => {
          resolve({ code, stdout: out, stderr: '' });
        });
      });
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('[0/2] 0 ok, 0 failed');
    expect(run.stdout).toMatch(/\[1\/2\] [01] ok, [01] failed/);
    // Each redraw and each result first clears the line.
    expect(run.stdout).toContain('\r\u001b[K');
    expect(run.stdout).toContain(`==> ${assetName}: exit 0`);
  });

  it('refuses an unknown target (exit 4) and a bad timeout (exit 2) before anything runs', async () => {
    expect((await svc(['exec', 'nowhere', '--', 'true'])).code).toBe(4);
    const bad = await svc(['exec', assetName, '--timeout', '0', '--', 'true']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--timeout must be between 1 and 3600');
  });
});

describe('svc files', () => {
  it('puts a file on the asset and gets it back byte for byte', async () => {
    const local = path.join(work, 'upload.bin');
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13, 0x1b]);
    fs.writeFileSync(local, bytes);
    const remote = path.join(work, 'on-agent', 'placed.bin');
    fs.mkdirSync(path.dirname(remote));
    const put = await svc(['files', 'put', assetName, local, remote]);
    expect(put.stderr).toContain(`wrote 7 bytes to ${assetName}:${remote}`);
    expect(put.code).toBe(0);
    expect(fs.readFileSync(remote)).toEqual(bytes);

    const again = await svc(['files', 'put', assetName, local, remote]);
    expect(again.code).toBe(6);
    expect((await svc(['files', 'put', '--overwrite', assetName, local, remote])).code).toBe(0);

    const dest = path.join(work, 'fetched.bin');
    const get = await svc(['files', 'get', assetName, remote, dest]);
    expect(get.code).toBe(0);
    expect(fs.readFileSync(dest)).toEqual(bytes);
    expect((await svc(['files', 'get', assetName, remote, dest])).code).toBe(2);
    const toStdout = await svc(['files', 'get', assetId, remote, '-']);
    expect(Buffer.from(toStdout.stdout, 'latin1').length).toBeGreaterThan(0);
  });

  it('says a missing remote file is not found (exit 4)', async () => {
    const run = await svc(['files', 'get', assetName, path.join(work, 'nothing-here'), path.join(work, 'x')]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('the hub refused');
  });
});

describe('svc keys', () => {
  it('creates a key shown once, lists it without its secret, and revokes it', async () => {
    const created = await svc([
      '--json',
      'keys',
      'create',
      '--name',
      'cli viewer',
      '--role',
      'viewer',
      '--scopes',
      'assets:read',
      '--allowed-assets',
      assetName,
    ]);
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout) as ApiKeyCreated;
    expect(key).toMatchObject({ name: 'cli viewer', role: 'viewer', allowed_assets: [assetId] });

    const listed = await svc(['--json', 'keys', 'ls']);
    const keys = JSON.parse(listed.stdout) as ApiKey[];
    expect(keys.map((k) => k.name)).toContain('cli viewer');
    expect(listed.stdout).not.toContain(key.raw_key);

    const asViewer = { SVC_API_KEY: key.raw_key };
    const seen = await svc(['--json', 'assets', 'ls'], { env: asViewer });
    expect((JSON.parse(seen.stdout) as { id: string }[]).map((a) => a.id)).toEqual([assetId]);
    const refused = await svc(['exec', assetName, '--', 'true'], { env: asViewer });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('the hub refused');

    const revoked = await svc(['keys', 'revoke', 'cli viewer']);
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toContain(`revoked cli viewer (${key.id})`);
    expect((await svc(['whoami'], { env: asViewer })).code).toBe(3);
  });

  it('refuses a bad role as usage (exit 2)', async () => {
    const run = await svc(['keys', 'create', '--name', 'x', '--role', 'owner', '--scopes', '*']);
    expect(run.code).toBe(2);
  });
});

describe('svc users', () => {
  it('disables a user (their key refused), lists them disabled, enables and deletes them', async () => {
    const made = dataOf<User>(
      await owner.post('/api/auth/users', {
        username: 'cli-carol',
        password: 'a long enough password',
        role: 'viewer',
      }),
      201,
    );
    const disabled = await svc(['users', 'disable', 'cli-carol']);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(disabled.stderr).toContain(`disabled cli-carol (${made.id})`);
    const listed = JSON.parse((await svc(['--json', 'users', 'ls'])).stdout) as User[];
    expect(listed.find((u) => u.id === made.id)?.disabled_at).not.toBeNull();
    const table = await svc(['users', 'ls']);
    expect(table.stdout).toMatch(/cli-carol\s+viewer\s+disabled/);

    expect((await svc(['users', 'enable', made.id])).code).toBe(0);
    const refused = await svc(['users', 'disable', 'owner']);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('owner');
    const deleted = await svc(['users', 'delete', 'cli-carol']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await svc(['users', 'delete', 'cli-carol'])).code).toBe(4);
  });
});

describe('svc maintenance', () => {
  it('creates a window on an asset, lists it as active, and removes it by name', async () => {
    const start = new Date(Date.now() - 60_000).toISOString();
    const end = new Date(Date.now() + 3_600_000).toISOString();
    const created = await svc([
      '--json',
      'maintenance',
      'create',
      '--name',
      'cli window',
      '--reason',
      'disk swap',
      '--assets',
      assetName,
      '--start',
      start,
      '--end',
      end,
    ]);
    expect(created.code, created.stderr).toBe(0);
    const window = JSON.parse(created.stdout) as MaintenanceWindow;
    expect(window).toMatchObject({ kind: 'one_off', asset_ids: [assetId], reason: 'disk swap' });

    const listed = await svc(['maintenance', 'ls', '--active']);
    expect(listed.stdout).toContain('cli window');
    expect(listed.stdout).toContain(window.id);
    const active = await svc(['maintenance', 'active']);
    expect(active.stdout).toContain(assetId);

    const bad = await svc(['maintenance', 'create', '--name', 'x', '--reason', 'y', '--assets', assetName]);
    expect(bad.code).toBe(2);
    const refused = await svc([
      'maintenance',
      'create',
      '--name',
      'x',
      '--reason',
      'y',
      '--assets',
      assetName,
      '--cron',
      'every night',
      '--duration',
      '60',
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('cron');

    const removed = await svc(['maintenance', 'rm', 'cli window']);
    expect(removed.code).toBe(0);
    expect(removed.stderr).toContain(`removed cli window (${window.id})`);
  });
});

describe('svc snippets', () => {
  it('saves a snippet from text and from standard input, lists it, and deletes it by name', async () => {
    const saved = await svc([
      '--json',
      'snippets',
      'add',
      '--name',
      'cli disk',
      '--text',
      'df -h',
      '--shared',
    ]);
    expect(saved.code, saved.stderr).toBe(0);
    const snippet = JSON.parse(saved.stdout) as Snippet;
    expect(snippet).toMatchObject({ name: 'cli disk', text: 'df -h', scope: 'shared' });
    const fromFile = await svc(['snippets', 'add', '--name', 'cli uptime', '--file', '-'], {
      input: 'uptime\n',
    });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.stderr).toContain('(snp_');

    const listed = await svc(['snippets', 'ls']);
    expect(listed.stdout).toMatch(/cli disk\s+shared\s+df -h\s+snp_/);
    expect((await svc(['snippets', 'ls', '--scope', 'personal'])).stdout).not.toContain('cli disk');
    expect((await svc(['snippets', 'ls', '--scope', 'everyone'])).code).toBe(2);
    expect((await svc(['snippets', 'add', '--name', 'neither'])).code).toBe(2);

    const removed = await svc(['snippets', 'rm', 'cli disk']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toContain(`deleted cli disk (${snippet.id})`);
    expect((await svc(['snippets', 'rm', 'cli disk'])).code).toBe(4);
  });
});

describe('svc events tail', () => {
  it('prints the events of the live feed as NDJSON and stops after --count', async () => {
    const tail = svc(['--json', 'events', 'tail', '--types', 'asset.updated', '--count', '1'], {
      timeoutMs: 30_000,
    });
    const state = { ended: false };
    void tail.then(() => (state.ended = true));
    // The feed carries what happens after it connects: touch the asset until the tail has seen it.
    for (let i = 0; i < 40 && !state.ended; i++) {
      await owner.request('PUT', `/api/v2/assets/${offlineId}`, {
        body: { description: `touch ${String(i)}` },
      });
      await sleep(250);
    }
    const run = await tail;
    expect(run.code).toBe(0);
    const [event] = ndjson(run.stdout) as { type: string; data: { asset_ids: string[] } }[];
    expect(event?.type).toBe('asset.updated');
    expect(event?.data.asset_ids).toEqual([offlineId]);
  });
});

describe('svc checks --from-agent', () => {
  it("runs a check from the agent's network: up while its loopback service answers, down once it stops", async () => {
    // Loopback: the hub's egress guard refuses it (no opt-in here); the agent on this machine reaches it.
    const server = http.createServer((_req, res) => res.writeHead(200).end('private ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;
    const add = await svc(['checks', 'add', url, '--name', 'private', '--from-agent', assetName]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout.split('\n')[0]).toMatch(/\bFROM\b/);
    expect(add.stdout).toContain(assetId);
    const up = await svc(['checks', 'run', 'private']);
    expect([up.code, up.stdout]).toEqual([0, expect.stringMatching(/^up \(200\) in \d+ ms\n$/) as unknown]);
    server.closeAllConnections();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
    const down = await svc(['checks', 'run', 'private']);
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/^down: .*ECONNREFUSED/);
    const fromHub = await svc(['checks', 'add', url, '--name', 'from-hub']);
    expect(fromHub.code).toBe(0);
    expect((await svc(['checks', 'run', 'from-hub'])).stdout).toMatch(/^down: refused by the egress guard/);
    const noAgent = await svc(['checks', 'add', url, '--name', 'nowhere', '--from-agent', 'e2e-cli-offline']);
    expect(noAgent.code).not.toBe(0);
    expect(noAgent.stderr).toContain('has no agent to run checks');
  });
});

describe('an unreachable hub', () => {
  it('is exit 5 with the address and what to check', async () => {
    const port = await freePort();
    const run = await svc(['whoami'], {
      env: { SVC_HUB_URL: `https://127.0.0.1:${String(port)}`, SVC_API_KEY: adminKey },
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(`cannot reach https://127.0.0.1:${String(port)}`);
    expect(run.stderr).not.toContain(adminKey);
  });
});
