/**
 * Runtime settings (spec 2.7): one catalog of typed keys by domain, each with its schema, code default, optional
 * env var and whether a change needs a restart. The hub resolves them (API value, then env, then default), the
 * admin API reads and changes them one domain at a time, the console shows them.
 */
import { Type, type Static, type TSchema } from 'typebox';

export const settingDomains = ['enrollment', 'connectors', 'retention', 'runtime', 'notifications'] as const;
export type SettingDomain = (typeof settingDomains)[number];

export type SettingValue = boolean | number | string;

export interface SettingDefinition {
  domain: SettingDomain;
  schema: TSchema;
  default: SettingValue;
  /** The env var that sets it when no API value is stored. */
  env?: string;
  /** Read once at start: a change is stored at once and applied by `POST /api/settings/restart`. */
  restartRequired: boolean;
  description: string;
  /** The accepted values in words, for the 400 that names the key. */
  allowed: string;
}

function booleanSetting(
  domain: SettingDomain,
  defaultValue: boolean,
  description: string,
  options: { env?: string; restartRequired?: boolean } = {},
) {
  return {
    domain,
    schema: Type.Boolean(),
    allowed: 'true or false',
    default: defaultValue,
    restartRequired: options.restartRequired ?? false,
    description,
    ...(options.env ? { env: options.env } : {}),
  };
}

function integerSetting(
  domain: SettingDomain,
  defaultValue: number,
  range: { minimum: number; maximum: number },
  description: string,
  options: { env?: string; restartRequired?: boolean } = {},
) {
  return {
    domain,
    schema: Type.Integer(range),
    allowed: `a whole number from ${String(range.minimum)} to ${String(range.maximum)}`,
    default: defaultValue,
    restartRequired: options.restartRequired ?? false,
    description,
    ...(options.env ? { env: options.env } : {}),
  };
}

function choiceSetting<const C extends readonly [string, ...string[]]>(
  domain: SettingDomain,
  choices: C,
  defaultValue: C[number],
  description: string,
  options: { env?: string; restartRequired?: boolean } = {},
) {
  return {
    domain,
    schema: Type.Enum<[...C]>(choices),
    allowed: `one of ${choices.join(', ')}`,
    default: defaultValue,
    restartRequired: options.restartRequired ?? false,
    description,
    ...(options.env ? { env: options.env } : {}),
  };
}

export const outboundPrivateModes = ['auto', 'true', 'false'] as const;
export type OutboundPrivateMode = (typeof outboundPrivateModes)[number];

export const notificationSeverities = ['info', 'warning', 'critical'] as const;

export const settingDefinitions = {
  // ---- Enrollment: agent bootstrap and token management ----
  'enrollment.token_default_expires_hours': integerSetting(
    'enrollment',
    24,
    { minimum: 1, maximum: 24 * 365 },
    'Hours an enrollment token lives when its request names none',
  ),
  'enrollment.token_default_max_uses': integerSetting(
    'enrollment',
    1,
    { minimum: 1, maximum: 10_000 },
    'Enrollments a token allows when its request names none',
  ),

  // ---- Connectors: collector behaviour (fleet defaults delivered to agents in the welcome) ----
  'services.discovery_default_container': booleanSetting(
    'connectors',
    true,
    'Agents discover containers (per-node override services_discovery_container; agent restart)',
  ),
  'services.discovery_default_proxy_api': booleanSetting(
    'connectors',
    true,
    'Agents discover services behind reverse-proxy APIs (per-node override; agent restart)',
  ),
  'services.discovery_default_port_scan': booleanSetting(
    'connectors',
    true,
    'Agents scan their own host for listening ports (per-node override; agent restart)',
  ),
  'services.discovery_default_lan_scan': booleanSetting(
    'connectors',
    false,
    'Agents scan their LAN CIDR (per-node override; agent restart)',
  ),

  // ---- Retention: how long history is kept ----
  'retention.metrics_days': integerSetting(
    'retention',
    7,
    { minimum: 1, maximum: 3650 },
    'Days of metric samples kept',
    { env: 'SVC_METRICS_RETENTION_DAYS', restartRequired: true },
  ),
  'retention.audit_days': integerSetting(
    'retention',
    365,
    { minimum: 1, maximum: 3650 },
    'Days of audit events kept (older ones are purged hourly, in batches)',
  ),
  'retention.webhook_deliveries_days': integerSetting(
    'retention',
    30,
    { minimum: 1, maximum: 3650 },
    'Days of finished webhook delivery records kept (older ones are purged hourly, in batches)',
  ),
  'retention.recordings_days': integerSetting(
    'retention',
    30,
    { minimum: 1, maximum: 3650 },
    'Days of session recordings kept (older ones are purged hourly, in batches)',
  ),

  // ---- Runtime/System: behaviour defaults and policy enforcement ----
  'security.outbound_allow_private': choiceSetting(
    'runtime',
    outboundPrivateModes,
    'auto',
    'Outbound connections (webhooks, connectors, discovery) to private networks: auto allows private and refuses loopback, true allows, false refuses',
    { env: 'SVC_OUTBOUND_ALLOW_PRIVATE' },
  ),
  'policy.structured_enabled': booleanSetting('runtime', true, 'Structured terminal command mode'),
  'policy.interactive_enabled': booleanSetting('runtime', true, 'Interactive terminal and desktop sessions'),
  'policy.connector_enabled': booleanSetting('runtime', true, 'Connector actions'),
  'policy.mcp_enabled': booleanSetting(
    'runtime',
    true,
    'The MCP server at /mcp: AI assistants and other MCP clients reading and acting through API keys',
  ),
  'sessions.recording_enabled': booleanSetting(
    'runtime',
    true,
    'Terminal sessions are recorded (asciicast v2)',
  ),
  'sessions.idle_timeout_minutes': integerSetting(
    'runtime',
    60,
    { minimum: 1, maximum: 7 * 24 * 60 },
    'Minutes without input or output after which a session ends',
  ),
  'sessions.detach_grace_seconds': integerSetting(
    'runtime',
    300,
    { minimum: 0, maximum: 7 * 24 * 3600 },
    'Seconds a session lives on with no browser attached',
  ),
  'rate_limit.per_ip_per_minute': integerSetting(
    'runtime',
    600,
    { minimum: 1, maximum: 10_000_000 },
    'API-key requests a minute per source address',
    { env: 'SVC_RATE_LIMIT_PER_IP', restartRequired: true },
  ),
  'rate_limit.per_key_per_minute': integerSetting(
    'runtime',
    3000,
    { minimum: 1, maximum: 10_000_000 },
    'API-key requests a minute per key across addresses',
    { env: 'SVC_RATE_LIMIT_PER_KEY', restartRequired: true },
  ),

  'updates.check_hours': integerSetting(
    'runtime',
    6,
    { minimum: 1, maximum: 168 },
    'Hours between the reports of available package updates asked of each agent',
  ),

  // ---- Notifications: alert routing and escalation ----
  'notifications.min_severity': choiceSetting(
    'notifications',
    notificationSeverities,
    'warning',
    'Lowest alert severity that is notified',
  ),
} as const satisfies Record<string, SettingDefinition>;

export type SettingKey = keyof typeof settingDefinitions;
export type SettingDefinitions = Readonly<Record<SettingKey, SettingDefinition>>;
export type SettingValueOf<K extends SettingKey> = (typeof settingDefinitions)[K]['default'] extends boolean
  ? boolean
  : (typeof settingDefinitions)[K]['default'] extends number
    ? number
    : Static<(typeof settingDefinitions)[K]['schema']>;

export const settingKeys = Object.keys(settingDefinitions) as SettingKey[];

export const policyNames = ['structured', 'interactive', 'connector'] as const;
export type PolicyName = (typeof policyNames)[number];

export const settingSources = ['api', 'env', 'default'] as const;
export type SettingSource = (typeof settingSources)[number];

const AnySettingValue = Type.Union([Type.Boolean(), Type.Number(), Type.String()]);

export const Setting = Type.Object({
  key: Type.String(),
  domain: Type.Enum<[...typeof settingDomains]>(settingDomains),
  value: AnySettingValue,
  source: Type.Enum<[...typeof settingSources]>(settingSources),
  default: AnySettingValue,
  env_var: Type.Union([Type.String(), Type.Null()]),
  restart_required: Type.Boolean(),
  /** Changed since this process started, and applied only by `POST /api/settings/restart`. */
  pending_restart: Type.Boolean(),
  description: Type.String(),
});
export type Setting = Static<typeof Setting>;

export const SettingsView = Type.Object({ settings: Type.Array(Setting) });
export type SettingsView = Static<typeof SettingsView>;

export const SettingDomainParams = Type.Object({
  domain: Type.Enum<[...typeof settingDomains]>(settingDomains),
});

/** One domain at a time: keys of that domain → a value, or null to clear the API value (env or default again). */
export const SettingsPatch = Type.Record(
  Type.String({ maxLength: 128 }),
  Type.Union([AnySettingValue, Type.Null()]),
  {
    minProperties: 1,
    maxProperties: 64,
  },
);
export type SettingsPatch = Static<typeof SettingsPatch>;

export const SettingsUpdated = Type.Object({
  settings: Type.Array(Setting),
  /** The keys whose value changed. */
  changed: Type.Array(Type.String()),
  /** Of those, the ones applied only by `POST /api/settings/restart`. */
  restart_required: Type.Array(Type.String()),
});
export type SettingsUpdated = Static<typeof SettingsUpdated>;

export const DiscoveryDefaults = Type.Object(
  {
    container: Type.Boolean(),
    proxy_api: Type.Boolean(),
    port_scan: Type.Boolean(),
    lan_scan: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type DiscoveryDefaults = Static<typeof DiscoveryDefaults>;
