/**
 * The hub's environment, parsed once in main.ts. Nothing else reads process.env.
 */
import path from 'node:path';
import { tlsModes } from '@svc/protocol/tls';
import { outboundAllowPrivateModes, type OutboundPolicy } from '../platform/outbound/address-policy.js';
import { parseNatsUrl } from '../platform/cluster/nats-url.js';
import { caNameProblem } from '../platform/tls/name-constraints.js';
import { defaultMoveRate } from '../agents/move-agents.js';
import { readSettingsEnv, type SettingLayer } from './settings.js';

export type TlsMode = (typeof tlsModes)[number];

export interface HubConfig {
  dataDir: string;
  databaseUrl: string | null;
  /**
   * SVC_NATS_URL: the cluster bus several hub processes share (decision 0038); null for the embedded cluster of
   * one. Its password never appears in a log line (platform/cluster/nats-url.ts redacts it).
   */
  natsUrl: string | null;
  /**
   * SVC_SHUTDOWN_DRAIN_SECONDS: after SIGTERM, how long the process goes on serving while /readyz says
   * `stopping`, so that a load balancer moves new requests to the other processes before this one closes
   * (decision 0046). Default 5 s with SVC_NATS_URL (several processes), 0 without (nothing to move to).
   */
  shutdownDrainMs: number;
  /**
   * SVC_AGENT_MOVE_RATE (50–100,000, default 1,000): after the drain, how many of its agents a stopping process
   * tells to move to the others per second, so that they land at a rate the others can take (decision 0093).
   */
  agentMoveRate: number;
  /**
   * SVC_CLUSTER_LEASE_SECONDS (3–300, default 20): how long a process's node lease lasts without a renewal
   * (renewed every tenth of it) before the others take it for gone (decision 0053). A stall shorter than the
   * lease less one renewal interval changes nothing.
   */
  clusterLeaseMs: number;
  host: string;
  httpPort: number;
  httpsPort: number;
  tlsMode: TlsMode;
  trustedProxies: string[];
  logLevel: string;
  /** `json` (one JSON object a line) or `pretty` for a person (SVC_LOG_FORMAT; unset: pretty at a terminal). */
  logFormat: LogFormat;
  rateLimit: RateLimitConfig;
  /** Runtime settings set by their env vars (the middle layer of spec 2.7's precedence). */
  settingsEnv: SettingLayer;
  bcryptCost: number;
  /** Extra names and addresses for the built-in server certificate. */
  tlsHostnames: string[];
  /**
   * What a new built-in CA may certify besides the hub's own names (SVC_TLS_CA_NAMES, decision 0052): DNS
   * names (with their subdomains), addresses and address ranges, e.g. a load balancer's name. Read when the CA
   * is made: its name constraints are in the CA certificate.
   */
  tlsCaNames: string[];
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
  /**
   * Where the built-in CA's sealed private key lives (SVC_TLS_CA_KEY_DIR): outside the data directory, so it is
   * not beside the hub key that unseals it nor in a copy of the data volume. Default `<data dir>-ca-key`.
   * Like the data directory, no agent may read it.
   */
  tlsCaKeyDir: string;
  /**
   * SVC_TLS_REPLACE_CA: the fingerprint of the cluster's recorded CA that a new one replaces on purpose (a
   * rotation, docs/security.md; decision 0055). Null: a CA other than the recorded one refuses the start.
   */
  tlsReplaceCa: string | null;
  encryptionKey: string | null;
  retiredEncryptionKeys: string[];
  /** The public origin browsers use, e.g. https://hub.example.net (for the same-origin check); null = from Host. */
  publicOrigin: string | null;
  oidc: OidcConfig | null;
  /** Where the hub sends Wake-on-LAN packets when no agent on the target's LAN relays them (`host:port`). */
  wolBroadcast: string;
  metricsRetentionDays: number;
  /** How often alert rules are evaluated (decision 0017). */
  alertIntervalS: number;
  /** `npm start` runs an agent for this machine beside the hub. */
  localAgent: boolean;
  /** The egress guard's starting policy (ARCHITECTURE §6 rule 12); each opt-in is off by default. */
  outbound: OutboundPolicy;
  /** The `tailscale` CLI the hub asks about its tailnet name and serve status (SVC_TAILSCALE_BIN). */
  tailscaleBinary: string;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string | null;
  redirectUri: string;
  scopes: string;
  /** Claim whose values map to roles, and the mapping (value → role). */
  roleClaim: string;
  roleMap: Record<string, 'admin' | 'operator' | 'viewer'>;
  defaultRole: 'admin' | 'operator' | 'viewer' | null;
  /** Let discovery and token requests go over plain http (SVC_OIDC_ALLOW_INSECURE): tests on loopback only. */
  allowInsecure: boolean;
}

export interface RateLimitConfig {
  enabled: boolean;
  perIpPerMinute: number;
  perKeyPerMinute: number;
}

const logFormats = ['json', 'pretty'] as const;
type LogFormat = (typeof logFormats)[number];

export class ConfigError extends Error {}

function readLogFormat(env: Env, stdoutIsTty: boolean): LogFormat {
  const raw = env.SVC_LOG_FORMAT;
  // Unset: readable lines for a person at a terminal, JSON for everything else (journald, a pipe, a file).
  if (raw === undefined || raw === '') return stdoutIsTty ? 'pretty' : 'json';
  if ((logFormats as readonly string[]).includes(raw)) return raw as LogFormat;
  throw new ConfigError(
    `SVC_LOG_FORMAT must be one of ${logFormats.join(', ')} (got ${JSON.stringify(raw)})`,
  );
}

type Env = Record<string, string | undefined>;

function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function readList(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A SHA-256 certificate fingerprint (`AB:CD:…`, colons optional), or the start fails. */
function readFingerprint(env: Env, name: string): string | null {
  const text = env[name]?.trim();
  if (!text) return null;
  // One form for comparing with the recorded one: upper-case hex pairs joined by colons.
  const hex = text.replace(/:/g, '').toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex))
    throw new ConfigError(`${name} must be a SHA-256 fingerprint (64 hex digits), got "${text}"`);
  return hex.replace(/(..)(?!$)/g, '$1:');
}

/** SVC_TLS_CA_NAMES: each entry a DNS name, an address or an address range, or the start fails saying which. */
function readCaNames(env: Env): string[] {
  const names = readList(env, 'SVC_TLS_CA_NAMES');
  for (const name of names) {
    const problem = caNameProblem(name);
    if (problem) throw new ConfigError(`SVC_TLS_CA_NAMES: "${name}" ${problem}`);
  }
  return names;
}

function readUdpTarget(env: Env, name: string, fallback: string): string {
  const value = env[name]?.trim() || fallback;
  const match = /^\[([^\]]+)\]:(\d+)$/.exec(value) ?? /^([^:]+):(\d+)$/.exec(value);
  const port = Number(match?.[2]);
  if (!match || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ConfigError(`${name} must be host:port (for example 192.168.1.255:9), got "${value}"`);
  }
  return value;
}

/** `allowPrivate` is the runtime setting `security.outbound_allow_private` as the env gives it (one parser). */
function readOutbound(env: Env, settingsEnv: SettingLayer): OutboundPolicy {
  const chosen = settingsEnv['security.outbound_allow_private'];
  const allowPrivate = outboundAllowPrivateModes.find((mode) => mode === chosen) ?? 'auto';
  return {
    allowPrivate,
    allowLoopback: readBool(env, 'SVC_OUTBOUND_ALLOW_LOOPBACK', false),
    allowLinkLocal: readBool(env, 'SVC_OUTBOUND_ALLOW_LINK_LOCAL', false),
    allowInsecure: readBool(env, 'SVC_OUTBOUND_ALLOW_INSECURE', false),
    hostAllowlist: null,
  };
}

const oidcRoles = ['admin', 'operator', 'viewer'] as const;
type OidcRole = (typeof oidcRoles)[number];

function readOidc(env: Env): OidcConfig | null {
  const issuer = env.SVC_OIDC_ISSUER?.trim();
  if (!issuer) return null;
  const clientId = env.SVC_OIDC_CLIENT_ID?.trim();
  const redirectUri = env.SVC_OIDC_REDIRECT_URI?.trim();
  if (!clientId || !redirectUri) {
    throw new ConfigError(
      'SVC_OIDC_ISSUER is set: SVC_OIDC_CLIENT_ID and SVC_OIDC_REDIRECT_URI are needed too',
    );
  }
  const roleMap: Record<string, OidcRole> = {};
  for (const pair of readList(env, 'SVC_OIDC_ROLE_MAP')) {
    const [value, role] = pair.split('=').map((s) => s.trim());
    if (!value || !role || !(oidcRoles as readonly string[]).includes(role)) {
      throw new ConfigError(
        `SVC_OIDC_ROLE_MAP entries are claim-value=role with role admin, operator or viewer; got "${pair}"`,
      );
    }
    roleMap[value] = role as OidcRole;
  }
  const defaultRole = env.SVC_OIDC_DEFAULT_ROLE?.trim() ?? '';
  if (defaultRole && !(oidcRoles as readonly string[]).includes(defaultRole)) {
    throw new ConfigError(
      'SVC_OIDC_DEFAULT_ROLE must be admin, operator or viewer (or unset to refuse unmapped users)',
    );
  }
  return {
    issuer,
    clientId,
    clientSecret: env.SVC_OIDC_CLIENT_SECRET?.trim() || null,
    redirectUri,
    scopes: env.SVC_OIDC_SCOPES?.trim() || 'openid profile email',
    roleClaim: env.SVC_OIDC_ROLE_CLAIM?.trim() || 'groups',
    roleMap,
    defaultRole: defaultRole ? (defaultRole as OidcRole) : null,
    allowInsecure: readBool(env, 'SVC_OIDC_ALLOW_INSECURE', false),
  };
}

function readNatsUrl(env: Env, databaseUrl: string | null): string | null {
  const raw = env.SVC_NATS_URL?.trim() || null;
  if (raw === null) return null;
  const parsed = parseNatsUrl(raw);
  // The problem names the scheme or the shape, never the URL itself: it may carry a password.
  if (!parsed.ok) {
    throw new ConfigError(
      `SVC_NATS_URL ${parsed.problem} (expected nats://[user:password@]host[:port] or tls://…)`,
    );
  }
  if (databaseUrl === null) {
    throw new ConfigError(
      'SVC_NATS_URL is set but SVC_DATABASE_URL is not: processes must share one PostgreSQL: set SVC_DATABASE_URL',
    );
  }
  return raw;
}

/**
 * `options`: what parseEnv needs to know about the process beyond its environment. `stdoutIsTty`: the hub's
 * stdout is a terminal, where the log defaults to `pretty` (SVC_LOG_FORMAT unset).
 */
export function parseEnv(env: Env, cwd: string, options: { stdoutIsTty?: boolean } = {}): HubConfig {
  const tlsMode = (env.SVC_TLS_MODE ?? 'auto') as TlsMode;
  if (!tlsModes.includes(tlsMode)) {
    throw new ConfigError(`SVC_TLS_MODE must be one of ${tlsModes.join(', ')}, got "${tlsMode}"`);
  }
  const databaseUrl = env.SVC_DATABASE_URL?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(
      'SVC_DATABASE_URL must be a postgres:// URL (leave it unset for the embedded SQLite)',
    );
  }
  const natsUrl = readNatsUrl(env, databaseUrl);
  const dataDir = path.resolve(cwd, env.SVC_DATA_DIR ?? 'data');
  const tlsCaKeyDir = path.resolve(cwd, env.SVC_TLS_CA_KEY_DIR?.trim() || `${dataDir}-ca-key`);
  if (tlsCaKeyDir === dataDir || tlsCaKeyDir.startsWith(`${dataDir}${path.sep}`)) {
    throw new ConfigError(
      `SVC_TLS_CA_KEY_DIR must be outside the data directory ${dataDir} (the CA key is kept apart from the hub key)`,
    );
  }
  const settingsEnv = readSettingsEnv(env);
  if (settingsEnv.problems.length > 0) throw new ConfigError(settingsEnv.problems.join('; '));
  return {
    dataDir,
    databaseUrl,
    natsUrl,
    shutdownDrainMs: readInt(env, 'SVC_SHUTDOWN_DRAIN_SECONDS', natsUrl ? 5 : 0, 0, 300) * 1000,
    agentMoveRate: readInt(env, 'SVC_AGENT_MOVE_RATE', defaultMoveRate, 50, 100_000),
    clusterLeaseMs: readInt(env, 'SVC_CLUSTER_LEASE_SECONDS', 20, 3, 300) * 1000,
    host: env.SVC_HOST ?? '0.0.0.0',
    httpPort: readInt(env, 'SVC_HTTP_PORT', 8080, 0, 65535),
    httpsPort: readInt(env, 'SVC_HTTPS_PORT', 8443, 0, 65535),
    tlsMode,
    trustedProxies: readList(env, 'SVC_TRUSTED_PROXIES'),
    logLevel: env.SVC_LOG_LEVEL ?? 'info',
    logFormat: readLogFormat(env, options.stdoutIsTty === true),
    rateLimit: {
      enabled: readBool(env, 'SVC_RATE_LIMIT_ENABLED', true),
      perIpPerMinute: readInt(env, 'SVC_RATE_LIMIT_PER_IP', 600, 1, 10_000_000),
      perKeyPerMinute: readInt(env, 'SVC_RATE_LIMIT_PER_KEY', 3000, 1, 10_000_000),
    },
    settingsEnv: settingsEnv.values,
    bcryptCost: readInt(env, 'SVC_BCRYPT_COST', 12, 4, 15),
    tlsHostnames: readList(env, 'SVC_TLS_HOSTNAMES'),
    tlsCaNames: readCaNames(env),
    tlsCertFile: env.SVC_TLS_CERT?.trim() || null,
    tlsKeyFile: env.SVC_TLS_KEY?.trim() || null,
    tlsCaKeyDir,
    tlsReplaceCa: readFingerprint(env, 'SVC_TLS_REPLACE_CA'),
    encryptionKey: env.SVC_ENCRYPTION_KEY?.trim() || null,
    retiredEncryptionKeys: readList(env, 'SVC_ENCRYPTION_KEYS_RETIRED'),
    publicOrigin: env.SVC_PUBLIC_ORIGIN?.trim().replace(/\/$/, '') || null,
    oidc: readOidc(env),
    wolBroadcast: readUdpTarget(env, 'SVC_WOL_BROADCAST', '255.255.255.255:9'),
    metricsRetentionDays: readInt(env, 'SVC_METRICS_RETENTION_DAYS', 7, 1, 3650),
    alertIntervalS: readInt(env, 'SVC_ALERT_INTERVAL_S', 30, 1, 3600),
    localAgent: readBool(env, 'SVC_LOCAL_AGENT', false),
    outbound: readOutbound(env, settingsEnv.values),
    tailscaleBinary: env.SVC_TAILSCALE_BIN?.trim() || 'tailscale',
  };
}
