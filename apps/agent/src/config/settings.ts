/**
 * Agent settings (spec 2.7): one pure function turns the environment, the settings file and the platform into
 * the values the agent runs with, with where each came from and what was wrong.
 *
 * Precedence, per setting: environment, then the settings file, then the low-power default (when low-power
 * mode is on and the setting has one), then the normal default. A value set in the file counts as explicitly
 * set, the same as one from the environment: `svc-agent settings set collect_interval 15s` keeps working on a
 * low-power machine.
 */
import { isIP } from 'node:net';
import {
  defaultDockerSocket,
  formatContainerEndpoint,
  parseContainerEndpoint,
  type ContainerEndpoint,
} from './container-endpoint.js';
import { formatDuration, parseBoolean, parseDuration } from './durations.js';

export type SettingSource = 'env' | 'file' | 'low_power' | 'default';

export interface AgentSettings {
  /** Base URL of the hub (`https://hub.example.net:8443`); null before enrollment. */
  hubUrl: string | null;
  /**
   * Further hub addresses (several processes without a balancer, or beside it; decision 0055): the channel
   * moves on to the next when one fails or asks its agents to move. Enrollment uses `hubUrl` only.
   */
  hubUrls: string[];
  assetId: string | null;
  credential: string | null;
  /** The hub's CA saved at enrollment; null means "verify with the system CAs". */
  caPem: string | null;
  caFingerprint: string | null;
  lowPowerMode: boolean;
  collectIntervalS: number;
  heartbeatIntervalS: number;
  containerDiscoveryIntervalS: number;
  servicesDiscoveryIntervalS: number;
  servicesDiscoveryPortScanEnabled: boolean;
  servicesDiscoveryPortScanIncludeListening: boolean;
  logStreamEnabled: boolean;
  containerEndpoint: ContainerEndpoint;
  allowPowerActions: boolean;
  /** Paths no file operation may touch (the hub's secrets on its own host); the agent adds its settings file. */
  protectedPaths: string[];
  /** Processes whose /proc entries are out of reach (the hub); the agent adds its own pid. */
  protectedPids: number[];
  /** The desktop's VNC server: always 127.0.0.1 on this machine, only the port is a setting. */
  vncPort: number;
  /** The terminal's shell (an absolute path); null: the agent user's own login shell (decision 0064). */
  terminalShell: string | null;
  /** Start the terminal's shell as a login shell (`-l`: it reads /etc/profile and ~/.profile). */
  terminalLoginShell: boolean;
}

type ValueKind =
  'duration' | 'boolean' | 'endpoint' | 'url' | 'urls' | 'text' | 'path' | 'paths' | 'pids' | 'port';

interface SettingDefinition {
  /** Key in the settings file and for `settings set`. */
  key: string;
  env: string | null;
  kind: ValueKind;
  description: string;
  /** Default as text; for the endpoint it depends on the platform. */
  normal: string;
  /** Default when low-power mode is on, if it differs. */
  lowPower: string | null;
  /** Set by `enroll` and key rotation, not by hand. */
  identity?: boolean;
}

/** Every setting, in display order. The README's tables are this list. */
export const settingDefinitions = [
  {
    key: 'hub_url',
    env: null,
    kind: 'url',
    description: 'hub base URL (set by enroll)',
    normal: '',
    lowPower: null,
    identity: true,
  },
  {
    key: 'hub_urls',
    env: 'SVC_HUB_URLS',
    kind: 'urls',
    description: 'more hub addresses, tried in turn after hub_url (comma-separated, at most 8)',
    normal: '',
    lowPower: null,
  },
  {
    key: 'asset_id',
    env: null,
    kind: 'text',
    description: 'this machine as an asset (set by enroll)',
    normal: '',
    lowPower: null,
    identity: true,
  },
  {
    key: 'credential',
    env: null,
    kind: 'text',
    description: 'agent credential (set by enroll, rotated by the hub)',
    normal: '',
    lowPower: null,
    identity: true,
  },
  {
    key: 'ca_pem',
    env: null,
    kind: 'text',
    description: "the hub's CA certificate (set by enroll)",
    normal: '',
    lowPower: null,
    identity: true,
  },
  {
    key: 'ca_fingerprint_sha256',
    env: null,
    kind: 'text',
    description: 'SHA-256 fingerprint of ca_pem',
    normal: '',
    lowPower: null,
    identity: true,
  },
  {
    key: 'low_power_mode',
    env: 'SVC_LOW_POWER_MODE',
    kind: 'boolean',
    description: 'slower intervals, no port scans, no log streaming',
    normal: 'false',
    lowPower: null,
  },
  {
    key: 'collect_interval',
    env: 'AGENT_COLLECT_INTERVAL',
    kind: 'duration',
    description: 'metrics collection interval',
    normal: '10s',
    lowPower: '30s',
  },
  {
    key: 'heartbeat_interval',
    env: 'AGENT_HEARTBEAT_INTERVAL',
    kind: 'duration',
    description: 'heartbeat interval',
    normal: '30s',
    lowPower: '120s',
  },
  {
    key: 'container_discovery_interval',
    env: 'SVC_CONTAINER_DISCOVERY_INTERVAL',
    kind: 'duration',
    description: 'container discovery interval',
    normal: '1m',
    lowPower: '5m',
  },
  {
    key: 'services_discovery_interval',
    env: 'SVC_SERVICES_DISCOVERY_INTERVAL',
    kind: 'duration',
    description: 'service discovery interval',
    normal: '2m',
    lowPower: '10m',
  },
  {
    key: 'services_discovery_port_scan_enabled',
    env: 'SVC_SERVICES_DISCOVERY_PORT_SCAN_ENABLED',
    kind: 'boolean',
    description: 'local port scan during service discovery',
    normal: 'true',
    lowPower: 'false',
  },
  {
    key: 'services_discovery_port_scan_include_listening',
    env: 'SVC_SERVICES_DISCOVERY_PORT_SCAN_INCLUDE_LISTENING',
    kind: 'boolean',
    description: 'include listening sockets in the port scan',
    normal: 'true',
    lowPower: 'false',
  },
  {
    key: 'log_stream_enabled',
    env: 'SVC_LOG_STREAM_ENABLED',
    kind: 'boolean',
    description: 'stream logs to the hub',
    normal: 'true',
    lowPower: 'false',
  },
  {
    key: 'docker_endpoint',
    env: 'SVC_CONTAINER_SOCKET',
    kind: 'endpoint',
    description: 'container engine: socket path, unix:// URI or http(s)://host:port',
    normal: defaultDockerSocket,
    lowPower: null,
  },
  {
    key: 'allow_power_actions',
    env: 'SVC_AGENT_ALLOW_POWER_ACTIONS',
    kind: 'boolean',
    description: 'let the hub reboot or shut down this machine',
    normal: 'true',
    lowPower: null,
  },
  {
    key: 'protected_paths',
    env: 'SVC_AGENT_PROTECTED_PATHS',
    kind: 'paths',
    description: 'absolute paths no file operation may touch (colon-separated in the environment)',
    normal: '',
    lowPower: null,
  },
  {
    key: 'protected_pids',
    env: 'SVC_AGENT_PROTECTED_PIDS',
    kind: 'pids',
    description: 'process ids whose /proc entries no file operation may touch (comma-separated)',
    normal: '',
    lowPower: null,
  },
  {
    key: 'vnc_port',
    env: 'SVC_AGENT_VNC_PORT',
    kind: 'port',
    description: "the desktop's VNC server port on this machine's loopback (never another host)",
    normal: '5900',
    lowPower: null,
  },
  {
    key: 'terminal_shell',
    env: 'SVC_AGENT_SHELL',
    kind: 'path',
    description: "the terminals' shell, an absolute path (default: the agent user's login shell)",
    normal: '',
    lowPower: null,
  },
  {
    key: 'terminal_login_shell',
    env: 'SVC_AGENT_SHELL_LOGIN',
    kind: 'boolean',
    description: "start the terminals' shell as a login shell (-l: /etc/profile, ~/.profile)",
    normal: 'true',
    lowPower: null,
  },
] as const satisfies readonly SettingDefinition[];

export type SettingKey = (typeof settingDefinitions)[number]['key'];
const settingKeys: SettingKey[] = settingDefinitions.map((d) => d.key);

export interface SettingsInput {
  env: Readonly<Record<string, string | undefined>>;
  /** The parsed settings file; null when there is none. */
  file: unknown;
  platform: NodeJS.Platform;
}

export interface ResolvedSettings {
  settings: AgentSettings;
  sources: Record<SettingKey, SettingSource>;
  /** Values that were refused (and what was used instead), unknown keys in the file. */
  warnings: string[];
}

function defaultContainerEndpoint(platform: NodeJS.Platform): ContainerEndpoint {
  // Docker Desktop on Windows listens on a named pipe; node reaches it through the same socketPath option.
  return platform === 'win32'
    ? { kind: 'unix', socketPath: '//./pipe/docker_engine' }
    : { kind: 'unix', socketPath: defaultDockerSocket };
}

/** A hub base URL: http(s), no credentials, query or fragment; returned without a trailing slash. */
export function parseHubUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password || url.search || url.hash) return null;
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/** How many addresses `hub_urls` may list: a handful of hub processes, not a fleet. */
const maxHubUrls = 8;

/**
 * Hub addresses: a JSON array of URLs or one string of them separated by commas (the environment's form), each
 * as `hub_url` takes it, and plain http only to this machine (the channel refuses the rest). Null when any
 * entry is not one, or there are more than maxHubUrls: a list with a mistake is reported, not half used.
 */
function parseHubUrls(value: unknown): string[] | null {
  const items: unknown = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(items)) return null;
  const urls: string[] = [];
  for (const item of items as unknown[]) {
    if (typeof item === 'string' && item.trim() === '') continue;
    const url = parseHubUrl(item);
    if (url === null || !sendsCredentialSafely(url)) return null;
    if (!urls.includes(url)) urls.push(url);
  }
  return urls.length <= maxHubUrls ? urls : null;
}

/** https, or http to this machine only: where the channel may send the agent credential. */
function sendsCredentialSafely(url: string): boolean {
  const parsed = new URL(url);
  if (parsed.protocol === 'https:') return true;
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/**
 * Protected paths: a JSON array of absolute paths, or one string of them separated by colons (the
 * environment's form). Null when any entry is not absolute: a list with a mistake is reported, not half used.
 */
function parseProtectedPaths(value: unknown): string[] | null {
  const items: unknown = typeof value === 'string' ? value.split(':') : value;
  if (!Array.isArray(items)) return null;
  const paths: string[] = [];
  for (const item of items as unknown[]) {
    if (typeof item !== 'string') return null;
    const trimmed = item.trim();
    if (trimmed === '') continue;
    if (!trimmed.startsWith('/') || trimmed.includes('\0')) return null;
    paths.push(trimmed);
  }
  return paths;
}

/** Protected process ids: a JSON array of positive integers, or one string of them separated by commas. */
function parseProtectedPids(value: unknown): number[] | null {
  const items: unknown = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(items)) return null;
  const pids: number[] = [];
  for (const item of items as unknown[]) {
    if (typeof item === 'string' && item.trim() === '') continue;
    const pid = typeof item === 'string' && /^\s*\d+\s*$/.test(item) ? Number(item) : item;
    if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return null;
    pids.push(pid);
  }
  return pids;
}

/**
 * A TCP port, 1 to 65535, and nothing else: the desktop tunnel's host is always loopback, so a value naming a
 * host (`10.0.0.5:5900`, `[::1]:5900`) is refused rather than half used.
 */
function parsePort(value: unknown): number | null {
  const port = typeof value === 'string' && /^\s*\d{1,5}\s*$/.test(value) ? Number(value) : value;
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535 ? port : null;
}

/** An absolute path, nothing else (no arguments: the value is run as one program). */
function parsePath(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed.startsWith('/') && !trimmed.includes('\0') && !/\s/.test(trimmed) ? trimmed : null;
}

function definition(key: SettingKey): SettingDefinition {
  const found = settingDefinitions.find((d) => d.key === key);
  if (!found) throw new Error(`unknown setting ${key}`);
  return found;
}

export function resolveSettings(input: SettingsInput): ResolvedSettings {
  const warnings: string[] = [];
  const sources = {} as Record<SettingKey, SettingSource>;
  const file = readFileObject(input.file, warnings);

  const envText = (name: string | null): string | undefined => {
    if (!name) return undefined;
    const value = input.env[name];
    return value === undefined || value.trim() === '' ? undefined : value;
  };

  const usedFrom: Record<SettingSource, string> = {
    env: 'using the environment',
    file: 'using the settings file',
    low_power: 'using the low-power default',
    default: 'using the default',
  };

  /** env → file → fallback; a refused value is reported with what was used instead. */
  const pick = <T>(
    key: SettingKey,
    parse: (v: unknown) => T | null,
    fallback: () => { value: T; source: SettingSource },
    fallbackWording?: string,
  ): T => {
    const def = definition(key);
    const refused: string[] = [];
    let chosen: { value: T; source: SettingSource } | null = null;
    const fromEnv = envText(def.env);
    if (fromEnv !== undefined) {
      const parsed = parse(fromEnv);
      if (parsed !== null) chosen = { value: parsed, source: 'env' };
      else refused.push(`${def.env ?? key}=${JSON.stringify(fromEnv)}`);
    }
    if (!chosen && key in file && file[key] !== null) {
      const parsed = parse(file[key]);
      if (parsed !== null) chosen = { value: parsed, source: 'file' };
      else refused.push(`${key} ${JSON.stringify(file[key])} in the settings file`);
    }
    chosen ??= fallback();
    for (const what of refused) {
      const instead =
        chosen.source === 'env' || chosen.source === 'file'
          ? usedFrom[chosen.source]
          : (fallbackWording ?? usedFrom[chosen.source]);
      warnings.push(`${what} is not a valid ${def.kind}; ${instead}`);
    }
    sources[key] = chosen.source;
    return chosen.value;
  };

  const lowPowerMode = pick('low_power_mode', parseBoolean, () => ({ value: false, source: 'default' }));
  const tuned = <T>(key: SettingKey, parse: (v: unknown) => T | null): T =>
    pick(key, parse, () => {
      const def = definition(key);
      const text = lowPowerMode && def.lowPower !== null ? def.lowPower : def.normal;
      const value = parse(text);
      if (value === null) throw new Error(`bad built-in default for ${key}`);
      return { value, source: lowPowerMode && def.lowPower !== null ? 'low_power' : 'default' };
    });

  const fallbackEndpoint = defaultContainerEndpoint(input.platform);
  const containerEndpoint = pick(
    'docker_endpoint',
    (v) => (typeof v === 'string' ? parseContainerEndpoint(v) : null),
    () => ({ value: fallbackEndpoint, source: 'default' }),
    // The spec's rule: an invalid endpoint falls back to the engine's local socket, and we say so.
    `falling back to ${formatContainerEndpoint(fallbackEndpoint)}`,
  );

  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  const none = () => ({ value: null, source: 'default' as const });
  const settings: AgentSettings = {
    hubUrl: pick('hub_url', parseHubUrl, none),
    hubUrls: pick('hub_urls', parseHubUrls, () => ({ value: [], source: 'default' })),
    assetId: pick('asset_id', text, none),
    credential: pick('credential', text, none),
    caPem: pick(
      'ca_pem',
      (v) => (typeof v === 'string' && v.includes('-----BEGIN CERTIFICATE-----') ? v : null),
      none,
    ),
    caFingerprint: pick('ca_fingerprint_sha256', text, none),
    lowPowerMode,
    collectIntervalS: tuned('collect_interval', parseDuration),
    heartbeatIntervalS: tuned('heartbeat_interval', parseDuration),
    containerDiscoveryIntervalS: tuned('container_discovery_interval', parseDuration),
    servicesDiscoveryIntervalS: tuned('services_discovery_interval', parseDuration),
    servicesDiscoveryPortScanEnabled: tuned('services_discovery_port_scan_enabled', parseBoolean),
    servicesDiscoveryPortScanIncludeListening: tuned(
      'services_discovery_port_scan_include_listening',
      parseBoolean,
    ),
    logStreamEnabled: tuned('log_stream_enabled', parseBoolean),
    containerEndpoint,
    allowPowerActions: pick('allow_power_actions', parseBoolean, () => ({ value: true, source: 'default' })),
    protectedPaths: [],
    protectedPids: [],
    vncPort: tuned('vnc_port', parsePort),
    terminalShell: pick('terminal_shell', parsePath, none),
    terminalLoginShell: tuned('terminal_login_shell', parseBoolean),
  };
  // Protections add up: the environment cannot take back what the file protects, nor the reverse.
  const union = <T>(key: SettingKey, parse: (v: unknown) => T[] | null): T[] => {
    const def = definition(key);
    const values = new Set<T>();
    let source: SettingSource = 'default';
    const fromEnv = envText(def.env);
    if (fromEnv !== undefined) {
      const parsed = parse(fromEnv);
      if (parsed === null) warnings.push(`${def.env ?? key}=${JSON.stringify(fromEnv)} is not a valid list`);
      else {
        for (const v of parsed) values.add(v);
        source = 'env';
      }
    }
    if (key in file && file[key] !== null) {
      const parsed = parse(file[key]);
      if (parsed === null)
        warnings.push(`${key} ${JSON.stringify(file[key])} in the settings file is not a valid list`);
      else {
        for (const v of parsed) values.add(v);
        if (source === 'default') source = 'file';
      }
    }
    sources[key] = source;
    return [...values];
  };
  settings.protectedPaths = union('protected_paths', parseProtectedPaths);
  settings.protectedPids = union('protected_pids', parseProtectedPids);
  return { settings, sources, warnings };
}

function readFileObject(file: unknown, warnings: string[]): Record<string, unknown> {
  if (file === null || file === undefined) return {};
  if (typeof file !== 'object' || Array.isArray(file)) {
    warnings.push('the settings file does not hold a JSON object; ignored');
    return {};
  }
  const record = file as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(settingKeys as string[]).includes(key))
      warnings.push(`unknown setting ${key} in the settings file; ignored`);
  }
  return record;
}

/** Keys a person may set by hand: everything but what enrollment writes (the hub URL may be corrected). */
export const settableKeys = settingDefinitions
  .filter((d) => !('identity' in d) || d.key === 'hub_url')
  .map((d) => d.key) as SettingKey[];

/**
 * Checks a value typed by a person (`settings set`) and returns what the file stores, or an error message.
 * Identity keys are refused: they come from enrollment.
 */
export function parseSettingValue(
  key: string,
  value: string,
): { ok: true; key: SettingKey; stored: string | boolean } | { ok: false; message: string } {
  const def = settingDefinitions.find((d) => d.key === key);
  if (!def) return { ok: false, message: `unknown setting ${key}; known: ${settingKeys.join(', ')}` };
  if (!settableKeys.includes(def.key)) {
    return { ok: false, message: `${key} is set by \`svc-agent enroll\`, not by hand` };
  }
  switch (def.kind) {
    case 'boolean': {
      const parsed = parseBoolean(value);
      return parsed === null
        ? { ok: false, message: `${key} takes true or false` }
        : { ok: true, key: def.key, stored: parsed };
    }
    case 'duration': {
      const parsed = parseDuration(value);
      return parsed === null
        ? { ok: false, message: `${key} takes a duration from 1s to 7 days: 30s, 5m, 1h or plain seconds` }
        : { ok: true, key: def.key, stored: formatDuration(parsed) };
    }
    case 'endpoint': {
      const parsed = parseContainerEndpoint(value);
      return parsed === null
        ? {
            ok: false,
            message: `${key} takes an absolute unix socket path, a unix:// URI or http(s)://host:port`,
          }
        : { ok: true, key: def.key, stored: formatContainerEndpoint(parsed) };
    }
    case 'url': {
      const parsed = parseHubUrl(value);
      return parsed === null
        ? { ok: false, message: `${key} takes an http(s) URL` }
        : { ok: true, key: def.key, stored: parsed };
    }
    case 'urls': {
      const parsed = parseHubUrls(value);
      return parsed === null
        ? {
            ok: false,
            message: `${key} takes up to ${String(maxHubUrls)} https URLs separated by commas (http only to this machine)`,
          }
        : { ok: true, key: def.key, stored: parsed.join(',') };
    }
    case 'text':
      return { ok: true, key: def.key, stored: value };
    case 'path': {
      const parsed = parsePath(value);
      return parsed === null
        ? { ok: false, message: `${key} takes an absolute path to a program, without arguments` }
        : { ok: true, key: def.key, stored: parsed };
    }
    case 'paths': {
      const parsed = parseProtectedPaths(value);
      return parsed === null
        ? { ok: false, message: `${key} takes absolute paths separated by colons` }
        : { ok: true, key: def.key, stored: parsed.join(':') };
    }
    case 'pids': {
      const parsed = parseProtectedPids(value);
      return parsed === null
        ? { ok: false, message: `${key} takes process ids separated by commas` }
        : { ok: true, key: def.key, stored: parsed.join(',') };
    }
    case 'port': {
      const parsed = parsePort(value);
      return parsed === null
        ? { ok: false, message: `${key} takes a port number from 1 to 65535 (the host is always 127.0.0.1)` }
        : { ok: true, key: def.key, stored: String(parsed) };
    }
  }
}

/** Settings for display: never the credential, the CA as its fingerprint. */
export function describeSettings(
  resolved: ResolvedSettings,
): { key: SettingKey; value: string; source: SettingSource }[] {
  const s = resolved.settings;
  const values: Record<SettingKey, string> = {
    hub_url: s.hubUrl ?? '(not enrolled)',
    hub_urls: s.hubUrls.length > 0 ? s.hubUrls.join(',') : '(none)',
    asset_id: s.assetId ?? '(not enrolled)',
    credential: s.credential ? '(set, hidden)' : '(none)',
    ca_pem: s.caPem ? '(saved)' : '(none: system CAs)',
    ca_fingerprint_sha256: s.caFingerprint ?? '(none)',
    low_power_mode: String(s.lowPowerMode),
    collect_interval: formatDuration(s.collectIntervalS),
    heartbeat_interval: formatDuration(s.heartbeatIntervalS),
    container_discovery_interval: formatDuration(s.containerDiscoveryIntervalS),
    services_discovery_interval: formatDuration(s.servicesDiscoveryIntervalS),
    services_discovery_port_scan_enabled: String(s.servicesDiscoveryPortScanEnabled),
    services_discovery_port_scan_include_listening: String(s.servicesDiscoveryPortScanIncludeListening),
    log_stream_enabled: String(s.logStreamEnabled),
    docker_endpoint: formatContainerEndpoint(s.containerEndpoint),
    allow_power_actions: String(s.allowPowerActions),
    protected_paths: s.protectedPaths.length > 0 ? s.protectedPaths.join(':') : '(none)',
    protected_pids: s.protectedPids.length > 0 ? s.protectedPids.join(',') : '(none)',
    vnc_port: String(s.vncPort),
    terminal_shell: s.terminalShell ?? "(the agent user's login shell)",
    terminal_login_shell: String(s.terminalLoginShell),
  };
  return settingKeys.map((key) => ({ key, value: values[key], source: resolved.sources[key] }));
}
