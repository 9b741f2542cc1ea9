/**
 * Connectors: the hub's links to the homelab's other control planes (Proxmox VE, TrueNAS, Proxmox Backup
 * Server, Portainer, Home Assistant). Admins add, change and remove them; credentials are write-only; the things
 * a connector manages appear as assets with `source: connector` (docs/decisions/0022-connectors.md).
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { IdParams, Maybe, Name, NullableTimestamp, Timestamp, literals } from './shared.js';

/** One word per product, as in paths and scopes (ARCHITECTURE: the neutral words are the identifiers). */
export const connectorKinds = ['virt', 'nas', 'backup', 'stacks', 'homeauto'] as const;
export type ConnectorKind = (typeof connectorKinds)[number];

/**
 * How the upstream's certificate is checked: the system CA pool, a CA the admin pastes (PEM), the SHA-256
 * fingerprint of the upstream's own certificate, or not at all (`insecure`: explicit, shown everywhere).
 */
export const connectorTlsModes = ['system', 'pinned_ca', 'fingerprint', 'insecure'] as const;
export type ConnectorTlsMode = (typeof connectorTlsModes)[number];

export const connectorHealths = ['ok', 'error', 'unknown'] as const;
export type ConnectorHealth = (typeof connectorHealths)[number];

/** What a connector-managed asset is upstream. */
export const connectorAssetKinds = [
  'node',
  'vm',
  'ct',
  'storage',
  'nas',
  'backup',
  'stacks_endpoint',
  'homeauto',
] as const;
export type ConnectorAssetKind = (typeof connectorAssetKinds)[number];

export const connectorLimits = {
  urlLength: 2048,
  credentialsLength: 4096,
  usernameLength: 128,
  caLength: 64 * 1024,
} as const;

const BaseUrl = Type.String({ minLength: 1, maxLength: connectorLimits.urlLength });
const Credentials = Type.String({ minLength: 1, maxLength: connectorLimits.credentialsLength });
const Username = Type.String({ minLength: 1, maxLength: connectorLimits.usernameLength });
const CaPem = Type.String({ minLength: 1, maxLength: connectorLimits.caLength });
/** SHA-256 as 64 hex digits, with or without colons. */
const Fingerprint = Type.String({ pattern: '^([0-9A-Fa-f]{2}:?){31}[0-9A-Fa-f]{2}$' });

/** A connector as every read shows it: never its credentials. */
export const Connector = Type.Object({
  id: Type.String(),
  kind: literals(connectorKinds),
  name: Type.String(),
  base_url: Type.String(),
  /** The account some upstreams need beside the key (TrueNAS `login_ex`); not a secret. */
  username: Maybe(Type.String()),
  has_credentials: Type.Boolean(),
  tls_mode: literals(connectorTlsModes),
  /** The pinned CA (public), when `tls_mode` is `pinned_ca`. */
  tls_ca: Maybe(Type.String()),
  /** Lowercase hex, when `tls_mode` is `fingerprint`. */
  tls_fingerprint: Maybe(Type.String()),
  /** True when the certificate is not checked at all: shown as a warning wherever the connector appears. */
  insecure: Type.Boolean(),
  enabled: Type.Boolean(),
  health: literals(connectorHealths),
  last_error: Maybe(Type.String()),
  last_checked_at: NullableTimestamp,
  /** Assets this connector's last inventory produced. */
  asset_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Connector = Static<typeof Connector>;

const connectorFields = {
  name: Name,
  base_url: BaseUrl,
  username: Type.Optional(Maybe(Username)),
  tls_mode: Type.Optional(literals(connectorTlsModes)),
  tls_ca: Type.Optional(Maybe(CaPem)),
  tls_fingerprint: Type.Optional(Maybe(Fingerprint)),
  enabled: Type.Optional(Type.Boolean()),
};

export const ConnectorCreate = Type.Object(
  { kind: literals(connectorKinds), ...connectorFields, credentials: Credentials },
  { additionalProperties: false },
);
export type ConnectorCreate = Static<typeof ConnectorCreate>;

/** Some fields; an absent `credentials` keeps the stored ones. The kind never changes. */
export const ConnectorUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    base_url: Type.Optional(BaseUrl),
    credentials: Type.Optional(Credentials),
    username: connectorFields.username,
    tls_mode: connectorFields.tls_mode,
    tls_ca: connectorFields.tls_ca,
    tls_fingerprint: connectorFields.tls_fingerprint,
    enabled: connectorFields.enabled,
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ConnectorUpdate = Static<typeof ConnectorUpdate>;

/** What one check did: reach the upstream, authenticate, read its inventory into assets. */
export const ConnectorCheck = Type.Object({
  health: literals(connectorHealths),
  error: Maybe(Type.String()),
  duration_ms: Type.Number(),
  /** Assets after the inventory sync; null when the check failed before it. */
  assets: Maybe(Type.Integer()),
});
export type ConnectorCheck = Static<typeof ConnectorCheck>;

const unrestrictedOnly = true;

export const connectorsContracts = {
  'connectors.list': defineRoute({
    name: 'connectors.list',
    surface: 'v2',
    method: 'GET',
    path: '/connectors',
    auth: 'scope',
    scope: 'connectors:read',
    summary: 'List connectors with their health and last error',
    unrestrictedOnly,
    query: PaginationQuery,
    response: Connector,
    list: true,
  }),
  'connectors.get': defineRoute({
    name: 'connectors.get',
    surface: 'v2',
    method: 'GET',
    path: '/connectors/{id}',
    auth: 'scope',
    scope: 'connectors:read',
    summary: 'Connector details',
    unrestrictedOnly,
    params: IdParams,
    response: Connector,
  }),
  'connectors.create': defineRoute({
    name: 'connectors.create',
    surface: 'v2',
    method: 'POST',
    path: '/connectors',
    auth: 'admin',
    unrestrictedOnly,
    summary: 'Add a connector (admin)',
    description:
      'The base URL passes the egress guard now and at every connection. Credentials are encrypted at rest ' +
      'and never returned. `tls_mode` `pinned_ca` needs `tls_ca`, `fingerprint` needs `tls_fingerprint`.',
    body: ConnectorCreate,
    response: Connector,
    successStatus: 201,
  }),
  'connectors.update': defineRoute({
    name: 'connectors.update',
    surface: 'v2',
    method: 'PATCH',
    path: '/connectors/{id}',
    auth: 'admin',
    unrestrictedOnly,
    summary: 'Change a connector (admin); absent credentials are kept',
    params: IdParams,
    body: ConnectorUpdate,
    response: Connector,
  }),
  'connectors.delete': defineRoute({
    name: 'connectors.delete',
    surface: 'v2',
    method: 'DELETE',
    path: '/connectors/{id}',
    auth: 'admin',
    unrestrictedOnly,
    summary: 'Remove a connector and the assets it brought (admin)',
    params: IdParams,
    response: Connector,
  }),
  'connectors.test': defineRoute({
    name: 'connectors.test',
    surface: 'v2',
    method: 'POST',
    path: '/connectors/{id}/test',
    auth: 'admin',
    unrestrictedOnly,
    summary: 'Check a connector now and sync its inventory into assets (admin)',
    params: IdParams,
    response: ConnectorCheck,
  }),
} satisfies Record<string, RouteContract>;
