/**
 * Service discovery: `POST /discovery/run` asks every online agent for its containers and listening ports
 * (per the fleet's defaults and each node's overrides) and, only when enabled, probes a LAN CIDR from the
 * hub through the egress policy. What it finds are suggestions a person accepts or dismisses; nothing becomes
 * an asset on its own (docs/decisions/0021-discovery.md).
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { idPatternFor } from '../ids.js';
import { Maybe, NullableTimestamp, Timestamp, literals } from './shared.js';

export const discoveryLanLimits = {
  /** The widest CIDR one run probes: a /24 of IPv4. */
  maxAddresses: 256,
  maxPorts: 16,
  defaultPorts: [22, 80, 443, 8006, 8080, 8443, 9000, 9090] as readonly number[],
} as const;

export const suggestionKinds = ['container', 'port', 'host'] as const;
export const suggestionStatuses = ['pending', 'accepted', 'dismissed'] as const;

export const DiscoveryRunRequest = Type.Object(
  {
    /** A LAN CIDR scan, refused unless `services.discovery_default_lan_scan` is on. */
    lan: Type.Optional(
      Type.Object(
        {
          cidr: Type.String({ minLength: 9, maxLength: 18, pattern: '^[0-9.]+/[0-9]{1,2}$' }),
          ports: Type.Optional(
            Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), {
              minItems: 1,
              maxItems: discoveryLanLimits.maxPorts,
              uniqueItems: true,
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type DiscoveryRunRequest = Static<typeof DiscoveryRunRequest>;

export const DiscoveryRunResult = Type.Object({
  started_at: Timestamp,
  finished_at: Timestamp,
  agents: Type.Object({
    asked: Type.Integer({ minimum: 0 }),
    answered: Type.Integer({ minimum: 0 }),
    failed: Type.Array(Type.Object({ asset_id: Type.String(), message: Type.String() })),
  }),
  /** Findings this run (containers, listening ports, LAN hosts), and how many were not suggested before. */
  found: Type.Integer({ minimum: 0 }),
  new_suggestions: Type.Integer({ minimum: 0 }),
  lan: Maybe(
    Type.Object({
      cidr: Type.String(),
      addresses: Type.Integer({ minimum: 0 }),
      probes: Type.Integer({ minimum: 0 }),
      refused: Type.Integer({ minimum: 0 }),
      hosts_found: Type.Integer({ minimum: 0 }),
    }),
  ),
});
export type DiscoveryRunResult = Static<typeof DiscoveryRunResult>;

export const DiscoverySuggestion = Type.Object({
  id: Type.String(),
  kind: literals(suggestionKinds),
  status: literals(suggestionStatuses),
  /** The asset it was found on (containers and ports); null for a LAN host. */
  asset_id: Maybe(Type.String()),
  title: Type.String(),
  detail: Type.Object({
    name: Type.Optional(Type.String()),
    image: Type.Optional(Type.String()),
    state: Type.Optional(Type.String()),
    compose_project: Type.Optional(Maybe(Type.String())),
    address: Type.Optional(Type.String()),
    protocol: Type.Optional(Type.String()),
    port: Type.Optional(Type.Integer()),
    ports: Type.Optional(Type.Array(Type.Integer())),
  }),
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
  decided_at: NullableTimestamp,
  /** The asset an accepted LAN host became. */
  created_asset_id: Maybe(Type.String()),
});
export type DiscoverySuggestion = Static<typeof DiscoverySuggestion>;

export const SuggestionsQuery = Type.Object({
  ...PaginationQuery.properties,
  status: Type.Optional(literals(suggestionStatuses)),
  kind: Type.Optional(literals(suggestionKinds)),
});

const SuggestionParams = Type.Object({
  id: Type.String({ pattern: idPatternFor('discoverySuggestion') }),
});

export const SuggestionAccept = Type.Object(
  {
    /** The name of the asset an accepted LAN host becomes (default: its address). */
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
  },
  { additionalProperties: false },
);

export const discoveryContracts = {
  'discovery.run': defineRoute({
    name: 'discovery.run',
    surface: 'v2',
    method: 'POST',
    path: '/discovery/run',
    auth: 'scope',
    scope: 'discovery:write',
    summary:
      'Trigger network discovery (containers and listening ports through the agents; a LAN CIDR when enabled)',
    unrestrictedOnly: true,
    body: DiscoveryRunRequest,
    response: DiscoveryRunResult,
  }),
  'discovery.suggestions': defineRoute({
    name: 'discovery.suggestions',
    surface: 'v2',
    method: 'GET',
    path: '/discovery/suggestions',
    auth: 'scope',
    scope: 'discovery:write',
    summary: 'What discovery found, to accept or dismiss',
    unrestrictedOnly: true,
    query: SuggestionsQuery,
    response: DiscoverySuggestion,
    list: true,
  }),
  'discovery.accept': defineRoute({
    name: 'discovery.accept',
    surface: 'v2',
    method: 'POST',
    path: '/discovery/suggestions/{id}/accept',
    auth: 'scope',
    scope: 'discovery:write',
    summary: 'Accept a suggestion (a LAN host becomes a manual asset)',
    unrestrictedOnly: true,
    params: SuggestionParams,
    body: SuggestionAccept,
    response: DiscoverySuggestion,
  }),
  'discovery.dismiss': defineRoute({
    name: 'discovery.dismiss',
    surface: 'v2',
    method: 'POST',
    path: '/discovery/suggestions/{id}/dismiss',
    auth: 'scope',
    scope: 'discovery:write',
    summary: 'Dismiss a suggestion (later runs leave it dismissed)',
    unrestrictedOnly: true,
    params: SuggestionParams,
    response: DiscoverySuggestion,
  }),
} satisfies Record<string, RouteContract>;
