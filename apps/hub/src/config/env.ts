/**
 * The hub's environment, parsed once in main.ts. Nothing else reads process.env.
 */
import path from 'node:path';

export const tlsModes = ['auto', 'external', 'disabled'] as const;
export type TlsMode = (typeof tlsModes)[number];

export interface HubConfig {
  dataDir: string;
  databaseUrl: string | null;
  host: string;
  httpPort: number;
  httpsPort: number;
  tlsMode: TlsMode;
  trustedProxies: string[];
  logLevel: string;
  rateLimit: RateLimitConfig;
  bcryptCost: number;
}

export interface RateLimitConfig {
  enabled: boolean;
  perIpPerMinute: number;
  perKeyPerMinute: number;
}

export class ConfigError extends Error {}

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

export function parseEnv(env: Env, cwd: string): HubConfig {
  const tlsMode = (env.SVC_TLS_MODE ?? 'disabled') as TlsMode;
  if (!tlsModes.includes(tlsMode)) {
    throw new ConfigError(`SVC_TLS_MODE must be one of ${tlsModes.join(', ')}, got "${tlsMode}"`);
  }
  const databaseUrl = env.SVC_DATABASE_URL?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(
      'SVC_DATABASE_URL must be a postgres:// URL (leave it unset for the embedded SQLite)',
    );
  }
  return {
    dataDir: path.resolve(cwd, env.SVC_DATA_DIR ?? 'data'),
    databaseUrl,
    host: env.SVC_HOST ?? '0.0.0.0',
    httpPort: readInt(env, 'SVC_HTTP_PORT', 8080, 0, 65535),
    httpsPort: readInt(env, 'SVC_HTTPS_PORT', 8443, 0, 65535),
    tlsMode,
    trustedProxies: (env.SVC_TRUSTED_PROXIES ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    logLevel: env.SVC_LOG_LEVEL ?? 'info',
    rateLimit: {
      enabled: readBool(env, 'SVC_RATE_LIMIT_ENABLED', true),
      perIpPerMinute: readInt(env, 'SVC_RATE_LIMIT_PER_IP', 600, 1, 10_000_000),
      perKeyPerMinute: readInt(env, 'SVC_RATE_LIMIT_PER_KEY', 3000, 1, 10_000_000),
    },
    bcryptCost: readInt(env, 'SVC_BCRYPT_COST', 12, 4, 15),
  };
}
