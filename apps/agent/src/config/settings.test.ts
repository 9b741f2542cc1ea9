import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseContainerEndpoint } from './container-endpoint.js';
import { formatDuration, parseBoolean, parseDuration } from './durations.js';
import {
  readSettingsFile,
  settingsPathFrom,
  updateSettingsFile,
  writeSettingsFile,
} from './settings-file.js';
import { parseSettingValue, resolveSettings, type AgentSettings, type SettingSource } from './settings.js';

type Env = Record<string, string | undefined>;

const lowPowerTable = {
  collectIntervalS: 30,
  heartbeatIntervalS: 120,
  containerDiscoveryIntervalS: 300,
  servicesDiscoveryIntervalS: 600,
  servicesDiscoveryPortScanEnabled: false,
  servicesDiscoveryPortScanIncludeListening: false,
  logStreamEnabled: false,
} satisfies Partial<AgentSettings>;

const normalTable = {
  collectIntervalS: 10,
  heartbeatIntervalS: 30,
  containerDiscoveryIntervalS: 60,
  servicesDiscoveryIntervalS: 120,
  servicesDiscoveryPortScanEnabled: true,
  servicesDiscoveryPortScanIncludeListening: true,
  logStreamEnabled: true,
} satisfies Partial<AgentSettings>;

describe('resolveSettings (spec 2.7)', () => {
  const cases: {
    name: string;
    env?: Env;
    file?: unknown;
    platform?: NodeJS.Platform;
    expected: Partial<AgentSettings>;
    sources?: Record<string, SettingSource>;
  }[] = [
    {
      name: 'nothing set: low-power off and the normal defaults',
      expected: { lowPowerMode: false, ...normalTable },
    },
    {
      name: 'SVC_LOW_POWER_MODE=true: the whole low-power table',
      env: { SVC_LOW_POWER_MODE: 'true' },
      expected: { lowPowerMode: true, ...lowPowerTable },
    },
    {
      name: 'SVC_LOW_POWER_MODE=1 counts as on',
      env: { SVC_LOW_POWER_MODE: '1' },
      expected: { lowPowerMode: true, collectIntervalS: 30 },
    },
    {
      name: 'SVC_LOW_POWER_MODE=false: normal defaults',
      env: { SVC_LOW_POWER_MODE: 'false' },
      expected: { lowPowerMode: false, ...normalTable },
    },
    {
      name: 'low-power from the settings file',
      file: { low_power_mode: true },
      expected: { lowPowerMode: true, ...lowPowerTable },
      sources: { low_power_mode: 'file', collect_interval: 'low_power' },
    },
    {
      name: 'low power on, but env sets the intervals: env wins',
      env: {
        SVC_LOW_POWER_MODE: 'true',
        AGENT_COLLECT_INTERVAL: '15s',
        AGENT_HEARTBEAT_INTERVAL: '45',
        SVC_CONTAINER_DISCOVERY_INTERVAL: '2m',
      },
      expected: {
        collectIntervalS: 15,
        heartbeatIntervalS: 45,
        containerDiscoveryIntervalS: 120,
        servicesDiscoveryIntervalS: 600,
      },
      sources: {
        collect_interval: 'env',
        heartbeat_interval: 'env',
        services_discovery_interval: 'low_power',
      },
    },
    {
      name: 'low power on, env turns the port scan and log streaming back on',
      env: {
        SVC_LOW_POWER_MODE: 'yes',
        SVC_SERVICES_DISCOVERY_PORT_SCAN_ENABLED: 'true',
        SVC_SERVICES_DISCOVERY_PORT_SCAN_INCLUDE_LISTENING: 'on',
        SVC_LOG_STREAM_ENABLED: '1',
      },
      expected: {
        servicesDiscoveryPortScanEnabled: true,
        servicesDiscoveryPortScanIncludeListening: true,
        logStreamEnabled: true,
        collectIntervalS: 30,
      },
    },
    {
      name: 'env beats the file',
      env: { AGENT_COLLECT_INTERVAL: '1h', SVC_LOW_POWER_MODE: 'false' },
      file: { collect_interval: '20s', low_power_mode: true },
      expected: { collectIntervalS: 3600, lowPowerMode: false },
      sources: { collect_interval: 'env', low_power_mode: 'env' },
    },
    {
      name: 'the file beats the low-power default (a value set on purpose stays)',
      file: { low_power_mode: true, collect_interval: 20 },
      expected: { collectIntervalS: 20, heartbeatIntervalS: 120 },
      sources: { collect_interval: 'file', heartbeat_interval: 'low_power' },
    },
    {
      name: 'an empty env value counts as unset',
      env: { AGENT_COLLECT_INTERVAL: '' },
      file: { collect_interval: '25s' },
      expected: { collectIntervalS: 25 },
    },
    {
      name: 'an invalid env interval falls through to the default',
      env: { AGENT_COLLECT_INTERVAL: 'soon', SVC_LOW_POWER_MODE: 'on' },
      expected: { collectIntervalS: 30 },
    },
    {
      name: 'an invalid boolean is ignored',
      env: { SVC_LOW_POWER_MODE: 'maybe' },
      expected: { lowPowerMode: false, collectIntervalS: 10 },
    },
    { name: 'power actions allowed by default', expected: { allowPowerActions: true } },
    {
      name: 'power actions off from env',
      env: { SVC_AGENT_ALLOW_POWER_ACTIONS: 'false' },
      expected: { allowPowerActions: false },
    },
    {
      name: 'power actions off from the file',
      file: { allow_power_actions: false },
      expected: { allowPowerActions: false },
    },
    {
      name: 'container endpoint default',
      expected: { containerEndpoint: { kind: 'unix', socketPath: '/var/run/docker.sock' } },
    },
    {
      name: 'container endpoint: absolute socket path',
      env: { SVC_CONTAINER_SOCKET: '/run/podman/podman.sock' },
      expected: { containerEndpoint: { kind: 'unix', socketPath: '/run/podman/podman.sock' } },
    },
    {
      name: 'container endpoint: unix:// URI',
      file: { docker_endpoint: 'unix:///run/docker.sock' },
      expected: { containerEndpoint: { kind: 'unix', socketPath: '/run/docker.sock' } },
    },
    {
      name: 'container endpoint: http://host:port',
      env: { SVC_CONTAINER_SOCKET: 'http://10.0.0.5:2375' },
      expected: { containerEndpoint: { kind: 'http', url: 'http://10.0.0.5:2375' } },
    },
    {
      name: 'container endpoint: https://host:port',
      env: { SVC_CONTAINER_SOCKET: 'https://docker.lan:2376/' },
      expected: { containerEndpoint: { kind: 'http', url: 'https://docker.lan:2376' } },
    },
    {
      name: 'container endpoint: tcp:// is invalid → local socket',
      env: { SVC_CONTAINER_SOCKET: 'tcp://10.0.0.5:2375' },
      expected: { containerEndpoint: { kind: 'unix', socketPath: '/var/run/docker.sock' } },
      sources: { docker_endpoint: 'default' },
    },
    {
      name: 'container endpoint: relative path is invalid → local socket',
      file: { docker_endpoint: 'docker.sock' },
      expected: { containerEndpoint: { kind: 'unix', socketPath: '/var/run/docker.sock' } },
    },
    {
      name: 'container endpoint: invalid env, valid file → the file',
      env: { SVC_CONTAINER_SOCKET: 'nonsense' },
      file: { docker_endpoint: '/srv/docker.sock' },
      expected: { containerEndpoint: { kind: 'unix', socketPath: '/srv/docker.sock' } },
      sources: { docker_endpoint: 'file' },
    },
    {
      name: 'container endpoint default on Windows is the named pipe',
      platform: 'win32',
      expected: { containerEndpoint: { kind: 'unix', socketPath: '//./pipe/docker_engine' } },
    },
    {
      name: 'identity from the file',
      file: {
        hub_url: 'https://hub.example.net:8443/',
        asset_id: 'ast_1',
        credential: 'sva_x',
        ca_pem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      },
      expected: { hubUrl: 'https://hub.example.net:8443', assetId: 'ast_1', credential: 'sva_x' },
    },
    {
      name: 'a hub URL that is not http(s) is dropped',
      file: { hub_url: 'ftp://hub' },
      expected: { hubUrl: null },
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const resolved = resolveSettings({
        env: c.env ?? {},
        file: c.file ?? null,
        platform: c.platform ?? 'linux',
      });
      expect(resolved.settings).toMatchObject(c.expected);
      if (c.sources) expect(resolved.sources).toMatchObject(c.sources);
    });
  }

  it('reports the container endpoint fallback in a warning', () => {
    const { warnings } = resolveSettings({
      env: { SVC_CONTAINER_SOCKET: 'tcp://10.0.0.5:2375' },
      file: null,
      platform: 'linux',
    });
    expect(warnings).toEqual([
      'SVC_CONTAINER_SOCKET="tcp://10.0.0.5:2375" is not a valid endpoint; falling back to /var/run/docker.sock',
    ]);
  });

  it('says which source it used instead of a refused value', () => {
    const { warnings } = resolveSettings({
      env: { SVC_CONTAINER_SOCKET: 'nonsense' },
      file: { docker_endpoint: '/srv/docker.sock' },
      platform: 'linux',
    });
    expect(warnings).toEqual([
      'SVC_CONTAINER_SOCKET="nonsense" is not a valid endpoint; using the settings file',
    ]);
  });

  it('warns about unknown keys and a file that is not an object, and never throws', () => {
    expect(resolveSettings({ env: {}, file: { colect_interval: '5s' }, platform: 'linux' }).warnings).toEqual(
      ['unknown setting colect_interval in the settings file; ignored'],
    );
    const fromArray = resolveSettings({ env: {}, file: [1, 2], platform: 'linux' });
    expect(fromArray.warnings).toEqual(['the settings file does not hold a JSON object; ignored']);
    expect(fromArray.settings.collectIntervalS).toBe(10);
  });
});

describe('protected paths and pids (the hub on its own host)', () => {
  it('reads colon-separated paths and comma-separated pids from the environment, arrays from the file', () => {
    const resolved = resolveSettings({
      env: { SVC_AGENT_PROTECTED_PATHS: '/var/lib/svc:/etc/svc/ca', SVC_AGENT_PROTECTED_PIDS: '41,42' },
      file: { protected_paths: ['/var/lib/svc', '/srv/keys/encryption.key'], protected_pids: [43] },
      platform: 'linux',
    });
    // Protections add up: neither source can take back what the other protects.
    expect(resolved.settings.protectedPaths).toEqual([
      '/var/lib/svc',
      '/etc/svc/ca',
      '/srv/keys/encryption.key',
    ]);
    expect(resolved.settings.protectedPids).toEqual([41, 42, 43]);
    expect(resolved.sources.protected_paths).toBe('env');
    expect(resolved.warnings).toEqual([]);
  });

  it('defaults to none, and reports a list with a relative path or a bad pid', () => {
    const none = resolveSettings({ env: {}, file: null, platform: 'linux' });
    expect(none.settings.protectedPaths).toEqual([]);
    expect(none.settings.protectedPids).toEqual([]);
    const bad = resolveSettings({
      env: { SVC_AGENT_PROTECTED_PATHS: 'var/lib/svc', SVC_AGENT_PROTECTED_PIDS: '12,x' },
      file: { protected_paths: ['/var/lib/svc'], protected_pids: [-1] },
      platform: 'linux',
    });
    expect(bad.settings.protectedPaths).toEqual(['/var/lib/svc']);
    expect(bad.settings.protectedPids).toEqual([]);
    expect(bad.warnings).toHaveLength(3);
  });

  it('can be set by hand', () => {
    expect(parseSettingValue('protected_paths', '/a:/b')).toEqual({
      ok: true,
      key: 'protected_paths',
      stored: '/a:/b',
    });
    expect(parseSettingValue('protected_pids', '7, 8')).toEqual({
      ok: true,
      key: 'protected_pids',
      stored: '7,8',
    });
    expect(parseSettingValue('protected_paths', 'relative')).toMatchObject({ ok: false });
  });
});

describe('hub_urls (several hub processes; decision 0055)', () => {
  it('reads a comma-separated list from SVC_HUB_URLS before the file, normalized, duplicates once', () => {
    const resolved = resolveSettings({
      env: { SVC_HUB_URLS: 'https://hub1.lan:8443/, https://hub2.lan:8443,https://hub1.lan:8443' },
      file: { hub_url: 'https://lb.lan', hub_urls: ['https://other.lan'] },
      platform: 'linux',
    });
    expect(resolved.settings.hubUrl).toBe('https://lb.lan');
    expect(resolved.settings.hubUrls).toEqual(['https://hub1.lan:8443', 'https://hub2.lan:8443']);
    expect(resolved.sources.hub_urls).toBe('env');
    expect(resolved.warnings).toEqual([]);
    const fromFile = resolveSettings({
      env: {},
      file: { hub_urls: ['https://other.lan'] },
      platform: 'linux',
    });
    expect(fromFile.settings.hubUrls).toEqual(['https://other.lan']);
    expect(resolveSettings({ env: {}, file: null, platform: 'linux' }).settings.hubUrls).toEqual([]);
  });

  it('refuses plain http to another machine, a non-URL, and more than 8 addresses, saying so', () => {
    const nine = Array.from({ length: 9 }, (_, i) => `https://hub${String(i)}.lan`).join(',');
    for (const value of ['http://hub.lan:8080', 'https://ok.lan,not a url', 'ftp://hub.lan', nine]) {
      const resolved = resolveSettings({ env: { SVC_HUB_URLS: value }, file: null, platform: 'linux' });
      expect(resolved.settings.hubUrls).toEqual([]);
      expect(resolved.warnings).toHaveLength(1);
      expect(resolved.warnings[0]).toContain('SVC_HUB_URLS');
    }
    // Plain http to this machine is allowed, as for hub_url.
    expect(
      resolveSettings({ env: { SVC_HUB_URLS: 'http://127.0.0.1:8080' }, file: null, platform: 'linux' })
        .settings.hubUrls,
    ).toEqual(['http://127.0.0.1:8080']);
  });

  it('can be set by hand', () => {
    expect(parseSettingValue('hub_urls', 'https://a.lan, https://b.lan/')).toEqual({
      ok: true,
      key: 'hub_urls',
      stored: 'https://a.lan,https://b.lan',
    });
    expect(parseSettingValue('hub_urls', 'http://a.lan')).toMatchObject({ ok: false });
  });
});

describe("the terminals' shell (decision 0064)", () => {
  it("defaults to the agent user's login shell, started as a login shell", () => {
    const { settings, sources } = resolveSettings({ env: {}, file: null, platform: 'linux' });
    expect([settings.terminalShell, settings.terminalLoginShell]).toEqual([null, true]);
    expect([sources.terminal_shell, sources.terminal_login_shell]).toEqual(['default', 'default']);
  });

  it('reads SVC_AGENT_SHELL and SVC_AGENT_SHELL_LOGIN before the file', () => {
    const { settings, sources } = resolveSettings({
      env: { SVC_AGENT_SHELL: '/bin/sh', SVC_AGENT_SHELL_LOGIN: 'no' },
      file: { terminal_shell: '/bin/bash', terminal_login_shell: true },
      platform: 'linux',
    });
    expect([settings.terminalShell, settings.terminalLoginShell]).toEqual(['/bin/sh', false]);
    expect([sources.terminal_shell, sources.terminal_login_shell]).toEqual(['env', 'env']);
  });

  it('refuses a relative path or one with arguments, saying so, and uses the next source', () => {
    const { settings, warnings } = resolveSettings({
      env: { SVC_AGENT_SHELL: 'bash --norc' },
      file: { terminal_shell: 'zsh' },
      platform: 'linux',
    });
    expect(settings.terminalShell).toBeNull();
    expect(warnings).toEqual([
      'SVC_AGENT_SHELL="bash --norc" is not a valid path; using the default',
      'terminal_shell "zsh" in the settings file is not a valid path; using the default',
    ]);
  });

  it('can be set by hand', () => {
    expect(parseSettingValue('terminal_shell', ' /usr/bin/fish ')).toEqual({
      ok: true,
      key: 'terminal_shell',
      stored: '/usr/bin/fish',
    });
    expect(parseSettingValue('terminal_shell', '/bin/bash --norc')).toMatchObject({ ok: false });
    expect(parseSettingValue('terminal_login_shell', 'off')).toEqual({
      ok: true,
      key: 'terminal_login_shell',
      stored: false,
    });
  });
});

describe('durations and booleans', () => {
  it.each([
    ['30s', 30],
    ['5m', 300],
    ['1h', 3600],
    ['45', 45],
    [' 2M ', 120],
    [90, 90],
  ] as const)('parses %j as %d seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each(['', '0', '0s', '-5s', '1.5s', '5d', 'ten', '8h0', 1.5, 0, '200h', null])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });

  it('refuses more than a week', () => {
    expect(parseDuration('169h')).toBeNull();
    expect(parseDuration('168h')).toBe(604_800);
  });

  it('formats back to the shortest exact unit', () => {
    expect([formatDuration(300), formatDuration(90), formatDuration(7200)]).toEqual(['5m', '90s', '2h']);
  });

  it('reads booleans in the usual spellings', () => {
    expect(['true', 'YES', 'on', '1', true].map(parseBoolean)).toEqual([true, true, true, true, true]);
    expect(['false', 'no', 'OFF', '0', false].map(parseBoolean)).toEqual([false, false, false, false, false]);
    expect(['', 'y', 2, null].map(parseBoolean)).toEqual([null, null, null, null]);
  });
});

describe('container endpoint', () => {
  it.each([
    '/var/run/../docker.sock',
    '/var/run/docker.sock/',
    'unix://relative.sock',
    'http://host',
    'http://user:pw@host:2375',
    'http://host:2375/v1',
    'tcp://h:1',
    '/a\0b',
  ])('refuses %j', (value) => {
    expect(parseContainerEndpoint(value)).toBeNull();
  });
});

describe('parseSettingValue (settings set)', () => {
  it('normalizes what it stores', () => {
    expect(parseSettingValue('collect_interval', '120')).toEqual({
      ok: true,
      key: 'collect_interval',
      stored: '2m',
    });
    expect(parseSettingValue('low_power_mode', 'on')).toEqual({
      ok: true,
      key: 'low_power_mode',
      stored: true,
    });
    expect(parseSettingValue('docker_endpoint', 'unix:///run/docker.sock')).toEqual({
      ok: true,
      key: 'docker_endpoint',
      stored: '/run/docker.sock',
    });
  });

  it('refuses bad values, unknown keys and identity keys', () => {
    expect(parseSettingValue('collect_interval', 'often')).toMatchObject({ ok: false });
    expect(parseSettingValue('docker_endpoint', 'tcp://x:1')).toMatchObject({ ok: false });
    expect(parseSettingValue('no_such_key', '1')).toMatchObject({
      ok: false,
      message: expect.stringContaining('unknown setting') as unknown,
    });
    expect(parseSettingValue('credential', 'sva_abc')).toMatchObject({
      ok: false,
      message: expect.stringContaining('enroll') as unknown,
    });
  });
});

describe('settings file', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('is written 0600, atomically, and read back', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'svc-agent-settings-'));
    const file = path.join(dir, 'nested', 'settings.json');
    await writeSettingsFile(file, { credential: 'sva_secret', collect_interval: '10s' });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readSettingsFile(file)).toEqual({
      content: { credential: 'sva_secret', collect_interval: '10s' },
      error: null,
    });
    expect(await readdir(path.dirname(file))).toEqual(['settings.json']); // no temporary file left behind
  });

  it('updates keys without losing concurrent changes, and removes keys set to null', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'svc-agent-settings-'));
    const file = path.join(dir, 'settings.json');
    await writeSettingsFile(file, { hub_url: 'https://hub:8443', collect_interval: '10s' });
    await Promise.all([
      updateSettingsFile(file, { credential: 'sva_new' }),
      updateSettingsFile(file, { low_power_mode: true }),
      updateSettingsFile(file, { collect_interval: null }),
    ]);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      hub_url: 'https://hub:8443',
      credential: 'sva_new',
      low_power_mode: true,
    });
  });

  it('reports a missing file as no content and a broken one as an error', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'svc-agent-settings-'));
    expect(await readSettingsFile(path.join(dir, 'none.json'))).toEqual({ content: null, error: null });
    const broken = path.join(dir, 'broken.json');
    await writeSettingsFile(broken, {});
    await writeFile(broken, '{not json');
    expect((await readSettingsFile(broken)).error).toMatch(/not valid JSON/);
  });

  it('takes the path from --config, then SVC_AGENT_CONFIG, then the default', () => {
    expect(settingsPathFrom('/tmp/a.json', { SVC_AGENT_CONFIG: '/tmp/b.json' })).toBe('/tmp/a.json');
    expect(settingsPathFrom(undefined, { SVC_AGENT_CONFIG: '/tmp/b.json' })).toBe('/tmp/b.json');
    expect(settingsPathFrom(undefined, {})).toBe('/etc/svc-agent/settings.json');
  });
});
