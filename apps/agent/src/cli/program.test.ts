import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeSettingsFile } from '../config/settings-file.js';
import { startFakeEnrollHub } from '../testing/fake-enroll-hub.js';
import { runCli, type CliIo } from './program.js';

const credential = `sva_${'s'.repeat(52)}`;
let dir: string;
let configPath: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'svc-agent-cli-'));
  configPath = path.join(dir, 'settings.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; update?: CliIo['update'] } = {},
) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (c: Buffer) => out.push(c.toString()));
  stderr.on('data', (c: Buffer) => err.push(c.toString()));
  const code = await runCli(['--config', configPath, ...args], {
    stdout,
    stderr,
    stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
    env: options.env ?? {},
    platform: 'linux',
    ...(options.update ? { update: options.update } : {}),
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

const enrolled = () =>
  writeSettingsFile(configPath, {
    hub_url: 'https://hub.example.net:8443',
    asset_id: 'ast_0042',
    credential,
    ca_fingerprint_sha256: 'AB:CD',
  });

describe('settings show and identity show', () => {
  it('shows every setting with its source, and never the credential', async () => {
    await enrolled();
    const { code, stdout } = await cli(['settings', 'show'], { env: { SVC_LOW_POWER_MODE: 'true' } });
    expect(code).toBe(0);
    expect(stdout).toMatch(/low_power_mode\s+true\s+\(env\)/);
    expect(stdout).toMatch(/collect_interval\s+30s\s+\(low_power\)/);
    expect(stdout).toMatch(/hub_url\s+https:\/\/hub.example.net:8443\s+\(file\)/);
    expect(stdout).not.toContain(credential);
  });

  it('identity show gives asset, hub and CA fingerprint, never the credential', async () => {
    await enrolled();
    const text = await cli(['identity', 'show']);
    expect(text.stdout).toContain('ast_0042');
    expect(text.stdout).toContain('AB:CD');
    const json = await cli(['identity', 'show', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      enrolled: true,
      asset_id: 'ast_0042',
      hub_url: 'https://hub.example.net:8443',
      ca_fingerprint_sha256: 'AB:CD',
    });
    expect(text.stdout + json.stdout).not.toContain(credential);
  });

  it('says when the machine is not enrolled', async () => {
    const { code, stdout } = await cli(['identity', 'show']);
    expect(code).toBe(0);
    expect(stdout).toContain('not enrolled');
  });
});

describe('settings set, unset, wizard', () => {
  it('sets a valid value in the file (0600) and refuses an invalid one', async () => {
    expect((await cli(['settings', 'set', 'heartbeat_interval', '90'])).code).toBe(0);
    expect(JSON.parse(await readFile(configPath, 'utf8'))).toEqual({ heartbeat_interval: '90s' });
    expect((await stat(configPath)).mode & 0o777).toBe(0o600);

    const bad = await cli(['settings', 'set', 'heartbeat_interval', 'often']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('heartbeat_interval takes a duration');
    expect(JSON.parse(await readFile(configPath, 'utf8'))).toEqual({ heartbeat_interval: '90s' });
  });

  it('refuses to set the credential by hand', async () => {
    await enrolled();
    const result = await cli(['settings', 'set', 'credential', `sva_${'x'.repeat(52)}`]);
    expect(result.code).toBe(1);
    expect(JSON.parse(await readFile(configPath, 'utf8'))).toMatchObject({ credential });
  });

  it('unsets a setting back to its default', async () => {
    await writeSettingsFile(configPath, { collect_interval: '5m', low_power_mode: true });
    expect((await cli(['settings', 'unset', 'collect_interval'])).code).toBe(0);
    expect(JSON.parse(await readFile(configPath, 'utf8'))).toEqual({ low_power_mode: true });
  });

  it('wizard --yes asks nothing and writes the base settings', async () => {
    const { code } = await cli(['settings', 'wizard', '--yes'], {
      env: { SVC_AGENT_ALLOW_POWER_ACTIONS: 'false' },
    });
    expect(code).toBe(0);
    expect(JSON.parse(await readFile(configPath, 'utf8'))).toEqual({
      low_power_mode: false,
      docker_endpoint: '/var/run/docker.sock',
      allow_power_actions: false,
    });
  });

  it('wizard takes answers from a pipe, re-asking after an invalid one', async () => {
    const answers = ['', 'true', 'not a socket', 'unix:///run/podman.sock', '', '45s', ''].join('\n') + '\n';
    const { code, stdout } = await cli(['settings', 'wizard'], { stdin: answers });
    expect(code).toBe(0);
    expect(stdout).toContain('docker_endpoint takes an absolute unix socket path');
    expect(JSON.parse(await readFile(configPath, 'utf8'))).toEqual({
      low_power_mode: true,
      docker_endpoint: '/run/podman.sock',
      collect_interval: '45s',
    });
  });
});

describe('settings test docker', () => {
  it('answers OK when the endpoint answers /_ping', async () => {
    const socketPath = path.join(dir, 'docker.sock');
    const server = http.createServer((req, res) => {
      if (req.url === '/_ping')
        res.writeHead(200, { 'content-type': 'text/plain', 'api-version': '1.41' }).end('OK');
      else if (req.url === '/v1.41/version')
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ Version: '4.3.1', ApiVersion: '1.41', Os: 'linux', Arch: 'amd64' }));
      else res.writeHead(404).end();
    });
    server.listen(socketPath);
    await once(server, 'listening');
    try {
      const result = await cli(['settings', 'test', 'docker'], {
        env: { SVC_CONTAINER_SOCKET: `unix://${socketPath}` },
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`OK: container engine at ${socketPath}: version 4.3.1, API 1.41`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('says why when it cannot reach the engine', async () => {
    const result = await cli(['settings', 'test', 'docker'], {
      env: { SVC_CONTAINER_SOCKET: path.join(dir, 'missing.sock') },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no socket at');
  });

  it('fails, saying so, when the endpoint is not a container engine', async () => {
    const socketPath = path.join(dir, 'other.sock');
    const server = http.createServer((_req, res) => res.writeHead(404).end('not here'));
    server.listen(socketPath);
    await once(server, 'listening');
    try {
      const result = await cli(['settings', 'test', 'docker'], { env: { SVC_CONTAINER_SOCKET: socketPath } });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('answered 404: not here (not a container engine?)');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('reports the fallback of an invalid endpoint', async () => {
    const result = await cli(['settings', 'test', 'docker'], {
      env: { SVC_CONTAINER_SOCKET: 'tcp://1.2.3.4:2375' },
    });
    expect(result.stdout).toContain('falling back to /var/run/docker.sock');
  });
});

describe('update self', () => {
  it('says plainly that no update source is configured', async () => {
    const result = await cli(['update', 'self']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no update source configured');
  });

  it('does nothing when up to date, and reinstalls with --force', async () => {
    const installed: string[] = [];
    const update: CliIo['update'] = {
      fetchText: () =>
        Promise.resolve({
          status: 200,
          body: JSON.stringify({
            version: '0.1.0',
            package: 'https://releases.example.net/svc-agent-0.1.0.tgz',
          }),
        }),
      install: (url) => {
        installed.push(url);
        return Promise.resolve();
      },
    };
    const env = { SVC_AGENT_UPDATE_URL: 'https://releases.example.net/latest.json' };
    const plain = await cli(['update', 'self'], { env, update });
    expect(plain.stdout).toContain('up to date');
    expect(installed).toEqual([]);
    const forced = await cli(['update', 'self', '--force'], { env, update });
    expect(forced.code).toBe(0);
    expect(installed).toEqual(['https://releases.example.net/svc-agent-0.1.0.tgz']);
  });

  it('refuses a plain http update source', async () => {
    const result = await cli(['update', 'self'], {
      env: { SVC_AGENT_UPDATE_URL: 'http://releases.example.net/latest.json' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('must be an https URL');
  });
});

describe('enroll', () => {
  it('enrolls from the command line; --no-power-actions saves allow_power_actions=false', async () => {
    const hub = await startFakeEnrollHub({
      answer: {
        request_id: 'r',
        data: {
          asset_id: 'ast_9',
          credential,
          ca_pem: null,
          ca_fingerprint_sha256: null,
          channel_path: '/api/v1/agent/channel',
        },
      },
    });
    try {
      const result = await cli([
        'enroll',
        '--hub',
        hub.url,
        '--token',
        `sve_${'t'.repeat(52)}`,
        '--insecure-loopback',
        '--no-power-actions',
        '--hostname',
        'dev-box',
      ]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('enrolled as asset ast_9');
      expect(result.stdout).not.toContain(credential);
      expect(JSON.parse(await readFile(configPath, 'utf8'))).toMatchObject({
        hub_url: hub.url,
        asset_id: 'ast_9',
        credential,
        allow_power_actions: false,
      });
      expect(hub.enrollBodies).toEqual([
        { token: `sve_${'t'.repeat(52)}`, hostname: 'dev-box', platform: 'linux', agent_version: '0.1.0' },
      ]);
    } finally {
      await hub.close();
    }
  });

  it('exits non-zero with the reason when a required option is missing', async () => {
    const result = await cli(['enroll', '--hub', 'https://hub']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('--token');
  });
});
