/** Schemas of the resources the hub returns and accepts. Schema and type share one name. */
import { Type, type Static } from 'typebox';
import { assignableRoles, roles } from './roles.js';
import { idPatternFor } from './ids.js';
import { DisplayName, DisplayText } from './display-text.js';

const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
const literals = <const T extends readonly string[]>(values: readonly [...T]) => Type.Enum<[...T]>(values);

export const limits = {
  nameLength: 120,
  descriptionLength: 2000,
  scopesPerKey: 64,
  allowedAssetsPerKey: 1000,
  assetsPerGroup: 10_000,
  tagsPerAsset: 32,
  tagLength: 64,
  ipAddressesPerAsset: 32,
  hostnameLength: 253,
  usernameLength: 64,
  passwordMinLength: 10,
  passwordMaxBytes: 72,
  searchQueryLength: 200,
  bodyBytes: 1_048_576,
} as const;

export const Name = DisplayName(limits.nameLength);
export const AssetId = Type.String({ pattern: idPatternFor('asset') });

// ---- API keys ----------------------------------------------------------------------------------------
export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  role: literals(roles),
  scopes: Type.Array(Type.String()),
  allowed_assets: Type.Array(Type.String()),
  expires_at: NullableTimestamp,
  created_by: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  last_used_at: NullableTimestamp,
});
export type ApiKey = Static<typeof ApiKey>;

export const ApiKeyCreated = Type.Object({ ...ApiKey.properties, raw_key: Type.String() });
export type ApiKeyCreated = Static<typeof ApiKeyCreated>;

const ScopeText = Type.String({ minLength: 1, maxLength: 64 });
export const ApiKeyCreate = Type.Object(
  {
    name: Name,
    role: literals(assignableRoles),
    scopes: Type.Array(ScopeText, { minItems: 1, maxItems: limits.scopesPerKey }),
    allowed_assets: Type.Optional(Type.Array(AssetId, { maxItems: limits.allowedAssetsPerKey })),
    expires_at: Type.Optional(Timestamp),
  },
  { additionalProperties: false },
);
export type ApiKeyCreate = Static<typeof ApiKeyCreate>;

export const ApiKeyUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    scopes: Type.Optional(Type.Array(ScopeText, { minItems: 1, maxItems: limits.scopesPerKey })),
    allowed_assets: Type.Optional(Type.Array(AssetId, { maxItems: limits.allowedAssetsPerKey })),
    expires_at: Type.Optional(NullableTimestamp),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ApiKeyUpdate = Static<typeof ApiKeyUpdate>;

// ---- whoami ------------------------------------------------------------------------------------------
export const authTypes = ['api_key', 'session'] as const;
export const Whoami = Type.Object({
  user_id: Type.Union([Type.String(), Type.Null()]),
  role: literals(roles),
  auth_type: literals(authTypes),
  scopes: Type.Array(Type.String()),
  key_id: Type.Optional(Type.String()),
  key_name: Type.Optional(Type.String()),
  expires_at: Type.Optional(NullableTimestamp),
  allowed_assets: Type.Optional(Type.Array(Type.String())),
  available_assets: Type.Integer({ minimum: 0 }),
});
export type Whoami = Static<typeof Whoami>;

// ---- assets ------------------------------------------------------------------------------------------
export const platforms = ['linux', 'windows', 'macos', 'freebsd', 'other'] as const;
export type Platform = (typeof platforms)[number];
export const assetStatuses = ['online', 'offline', 'unknown'] as const;
export type AssetStatus = (typeof assetStatuses)[number];
export const assetSources = ['manual', 'agent'] as const;

const Hostname = Type.String({ minLength: 1, maxLength: limits.hostnameLength, pattern: '^[A-Za-z0-9.-]+$' });
const IpAddress = Type.String({ anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] });
const MacAddress = Type.String({ pattern: '^[0-9A-Fa-f]{2}([:-][0-9A-Fa-f]{2}){5}$' });
const Tag = Type.String({ minLength: 1, maxLength: limits.tagLength, pattern: '^[A-Za-z0-9_.:/-]+$' });
const Description = DisplayText(limits.descriptionLength);

export const AgentStatus = Type.Object({
  connected: Type.Boolean(),
  version: Type.Union([Type.String(), Type.Null()]),
  connected_at: NullableTimestamp,
});
export type AgentStatus = Static<typeof AgentStatus>;

export const Asset = Type.Object({
  id: Type.String(),
  name: Type.String(),
  hostname: Type.Union([Type.String(), Type.Null()]),
  platform: literals(platforms),
  status: literals(assetStatuses),
  source: literals(assetSources),
  ip_addresses: Type.Array(Type.String()),
  mac_address: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Array(Type.String()),
  description: Type.Union([Type.String(), Type.Null()]),
  last_seen_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  agent: Type.Union([AgentStatus, Type.Null()]),
  /** The machine the hub itself runs on: exec, files, processes and logs there need the admin role. */
  hub_host: Type.Boolean(),
});
export type Asset = Static<typeof Asset>;

const assetFields = {
  hostname: Type.Optional(Type.Union([Hostname, Type.Null()])),
  platform: Type.Optional(literals(platforms)),
  ip_addresses: Type.Optional(Type.Array(IpAddress, { maxItems: limits.ipAddressesPerAsset })),
  mac_address: Type.Optional(Type.Union([MacAddress, Type.Null()])),
  tags: Type.Optional(Type.Array(Tag, { maxItems: limits.tagsPerAsset })),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
};
export const AssetCreate = Type.Object({ name: Name, ...assetFields }, { additionalProperties: false });
export type AssetCreate = Static<typeof AssetCreate>;
export const AssetUpdate = Type.Object(
  { name: Type.Optional(Name), ...assetFields },
  { additionalProperties: false, minProperties: 1 },
);
export type AssetUpdate = Static<typeof AssetUpdate>;

/** Orders of the asset list: a field, descending with `-`; ties by name, then id. */
export const assetSorts = [
  'name',
  '-name',
  'status',
  '-status',
  'platform',
  '-platform',
  'last_seen_at',
  '-last_seen_at',
] as const;
export type AssetSort = (typeof assetSorts)[number];

export const AssetListQuery = Type.Object({
  status: Type.Optional(literals(assetStatuses)),
  platform: Type.Optional(literals(platforms)),
  group: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'Only members of this group (a group id)' }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: limits.searchQueryLength,
      description: 'Case-insensitive text in the name, hostname, an IP address or a tag',
    }),
  ),
  sort: Type.Optional({
    ...literals(assetSorts),
    description: 'Order: a field, descending with `-` (default `name`); assets never seen sort last',
  }),
});
export type AssetListQuery = Static<typeof AssetListQuery>;

// ---- groups ------------------------------------------------------------------------------------------
export const Group = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  asset_ids: Type.Array(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Group = Static<typeof Group>;

export const GroupCreate = Type.Object(
  {
    name: Name,
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    asset_ids: Type.Optional(Type.Array(AssetId, { maxItems: limits.assetsPerGroup, uniqueItems: true })),
  },
  { additionalProperties: false },
);
export type GroupCreate = Static<typeof GroupCreate>;

export const GroupUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    asset_ids: Type.Optional(Type.Array(AssetId, { maxItems: limits.assetsPerGroup, uniqueItems: true })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type GroupUpdate = Static<typeof GroupUpdate>;

// ---- search ------------------------------------------------------------------------------------------
export const SearchQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: limits.searchQueryLength }),
  type: Type.Optional(literals(['asset', 'group'] as const)),
});
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchHit = Type.Object({
  type: literals(['asset', 'group'] as const),
  id: Type.String(),
  name: Type.String(),
  matched: Type.String(),
});
export type SearchHit = Static<typeof SearchHit>;

// ---- audit -------------------------------------------------------------------------------------------
export const actorTypes = ['api_key', 'session', 'system', 'agent'] as const;
export type ActorType = (typeof actorTypes)[number];
export const AuditEvent = Type.Object({
  id: Type.String(),
  ts: Timestamp,
  actor_type: literals(actorTypes),
  actor_id: Type.Union([Type.String(), Type.Null()]),
  action: Type.String(),
  target_type: Type.Union([Type.String(), Type.Null()]),
  target_id: Type.Union([Type.String(), Type.Null()]),
  asset_id: Type.Union([Type.String(), Type.Null()]),
  ip: Type.Union([Type.String(), Type.Null()]),
  request_id: Type.Union([Type.String(), Type.Null()]),
  detail: Type.Record(Type.String(), Type.Unknown()),
});
export type AuditEvent = Static<typeof AuditEvent>;

export const AuditQuery = Type.Object({
  action: Type.Optional(Type.String({ maxLength: 64 })),
  actor_id: Type.Optional(Type.String({ maxLength: 64 })),
  target_id: Type.Optional(Type.String({ maxLength: 64 })),
  asset_id: Type.Optional(Type.String({ maxLength: 64 })),
  since: Type.Optional(Timestamp),
  until: Type.Optional(Timestamp),
});
export type AuditQuery = Static<typeof AuditQuery>;

// ---- hub ---------------------------------------------------------------------------------------------
export const HubStatus = Type.Object({
  status: literals(['ok', 'degraded'] as const),
  version: Type.String(),
  started_at: Timestamp,
  uptime_seconds: Type.Integer({ minimum: 0 }),
  database: literals(['sqlite', 'postgres'] as const),
  assets: Type.Object({
    total: Type.Integer({ minimum: 0 }),
    online: Type.Integer({ minimum: 0 }),
    offline: Type.Integer({ minimum: 0 }),
    unknown: Type.Integer({ minimum: 0 }),
  }),
  agents_connected: Type.Integer({ minimum: 0 }),
  /** Metric samples since the hub started, and histories of deleted assets still being deleted. */
  metrics: Type.Object({
    /** Dropped by agents' budgets (over budget, duplicate timestamp, outside the window). */
    samples_dropped: Type.Integer({ minimum: 0 }),
    /** Taken but lost by the store: its buffer was full, or a write failed. */
    samples_lost: Type.Integer({ minimum: 0 }),
    purges_pending: Type.Integer({ minimum: 0 }),
  }),
  time: Timestamp,
});
export type HubStatus = Static<typeof HubStatus>;

// ---- users (console) ---------------------------------------------------------------------------------
const Username = Type.String({
  minLength: 3,
  maxLength: limits.usernameLength,
  pattern: '^[a-zA-Z0-9._@-]+$',
});
const Password = Type.String({ minLength: limits.passwordMinLength, maxLength: 256 });
export const User = Type.Object({
  id: Type.String(),
  username: Type.String(),
  role: literals(roles),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type User = Static<typeof User>;
export const UserCreate = Type.Object(
  { username: Username, password: Password, role: literals(assignableRoles) },
  { additionalProperties: false },
);
export type UserCreate = Static<typeof UserCreate>;
export const UserUpdate = Type.Object(
  { role: Type.Optional(literals(assignableRoles)), password: Type.Optional(Password) },
  { additionalProperties: false, minProperties: 1 },
);
export type UserUpdate = Static<typeof UserUpdate>;

// ---- exec (contract only until the agents issue) -----------------------------------------------------
export const execLimits = {
  defaultTimeout: 30,
  maxTimeout: 3600,
  commandBytes: 65_536,
  streamBytes: 1_048_576,
  /**
   * stdout + stderr bytes a fan-out may hold at once: everything in a JSON body, or what is not yet written
   * in an NDJSON stream. Results past it keep status, exit code and duration; their streams are cut.
   */
  fanOutResultBytes: 67_108_864,
};
export const ExecRequest = Type.Object(
  {
    command: Type.String({ minLength: 1, maxLength: execLimits.commandBytes }),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: execLimits.maxTimeout, default: 30 })),
  },
  { additionalProperties: false },
);
export type ExecRequest = Static<typeof ExecRequest>;
export const ExecManyRequest = Type.Object(
  {
    targets: Type.Optional(Type.Array(AssetId, { maxItems: 20_000, uniqueItems: true })),
    group: Type.Optional(Type.String({ pattern: idPatternFor('group') })),
    command: Type.String({ minLength: 1, maxLength: execLimits.commandBytes }),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: execLimits.maxTimeout, default: 30 })),
  },
  { additionalProperties: false },
);
export type ExecManyRequest = Static<typeof ExecManyRequest>;
