/**
 * The infrastructure graph: assets as nodes, edges from what connectors and agents report (a hypervisor hosts
 * its guests, storage lives on a node, a backup server backs up guests) and links people declare
 * (docs/decisions/0023-dependency-graph.md).
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { AssetId, Description, IdParams, Maybe, Timestamp, assetParam, literals } from './shared.js';

export const dependencyEdgeTypes = ['hosts', 'stores', 'backs_up', 'runs', 'declared'] as const;
export type DependencyEdgeType = (typeof dependencyEdgeTypes)[number];

export const DependencyNode = Type.Object({
  /** The asset id, or for a container `<asset id>:<engine id>`. */
  id: Type.String(),
  name: Type.String(),
  /**
   * The upstream kind for connector assets (`node`, `vm`, `ct`, `storage`, …), `container` for a container an
   * agent reported (its status the engine's state), `host` for the others.
   */
  kind: Type.String(),
  source: Type.String(),
  status: Type.String(),
});
export type DependencyNode = Static<typeof DependencyNode>;

export const DependencyEdge = Type.Object({
  from: Type.String(),
  to: Type.String(),
  type: literals(dependencyEdgeTypes),
  /** The declared link's id (to remove it); null for edges the hub derived. */
  link_id: Maybe(Type.String()),
  label: Maybe(Type.String()),
});
export type DependencyEdge = Static<typeof DependencyEdge>;

export const DependencyGraph = Type.Object({
  nodes: Type.Array(DependencyNode),
  edges: Type.Array(DependencyEdge),
});
export type DependencyGraph = Static<typeof DependencyGraph>;

export const DependencyLinkCreate = Type.Object(
  { from: AssetId, to: AssetId, label: Type.Optional(Maybe(Description)) },
  { additionalProperties: false },
);
export type DependencyLinkCreate = Static<typeof DependencyLinkCreate>;

export const DependencyLink = Type.Object({
  id: Type.String(),
  from: Type.String(),
  to: Type.String(),
  label: Maybe(Type.String()),
  created_at: Timestamp,
});
export type DependencyLink = Static<typeof DependencyLink>;

/**
 * What breaks when an asset goes down (decision 0080): the nodes that depend on it, directly or through
 * others. `hosts`, `stores` and `runs` edges point from what is depended on to its dependent; a `declared`
 * link points from the dependent to what it depends on; `backs_up` is no runtime dependency.
 */
export const blastRadiusLimits = {
  defaultDepth: 10,
  maxDepth: 20,
  /** Dependents listed at most (nearest first); `total` still counts them all. */
  maxListed: 1000,
} as const;

export const BlastRadiusQuery = Type.Object(
  { max_depth: Type.Optional(Type.Integer({ minimum: 1, maximum: blastRadiusLimits.maxDepth })) },
  { additionalProperties: false },
);
export type BlastRadiusQuery = Static<typeof BlastRadiusQuery>;

export const BlastRadiusDependent = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.String(),
  status: Type.String(),
  /** 1: depends on the asset itself; 2: on one of those; … (the shortest way). */
  depth: Type.Integer({ minimum: 1 }),
  /** Node ids from the asset to this dependent, both ends included (one shortest way). */
  path: Type.Array(Type.String()),
  /** The kind of the last link on that way. */
  via: literals(dependencyEdgeTypes),
});
export type BlastRadiusDependent = Static<typeof BlastRadiusDependent>;

export const BlastRadius = Type.Object({
  asset_id: Type.String(),
  /** Nearest first, then by name; at most `blastRadiusLimits.maxListed`. */
  dependents: Type.Array(BlastRadiusDependent),
  /** Every dependent found within `max_depth`, listed or not. */
  total: Type.Integer(),
  /** Of `total`: assets, and containers agents reported. */
  assets: Type.Integer(),
  containers: Type.Integer(),
  /** Of `total`: those at depth 1. */
  direct: Type.Integer(),
  max_depth: Type.Integer(),
  /** Some dependents lie deeper than `max_depth` and are not counted. */
  depth_limited: Type.Boolean(),
  /** `dependents` holds fewer than `total`. */
  truncated: Type.Boolean(),
});
export type BlastRadius = Static<typeof BlastRadius>;

export const dependenciesContracts = {
  dependencies: defineRoute({
    name: 'dependencies',
    surface: 'v2',
    method: 'GET',
    path: '/dependencies',
    auth: 'scope',
    scope: 'topology:read',
    summary: 'Infrastructure graph: the assets the caller may see and the edges between them',
    response: DependencyGraph,
  }),
  'dependencies.createLink': defineRoute({
    name: 'dependencies.createLink',
    surface: 'v2',
    method: 'POST',
    path: '/dependencies/links',
    auth: 'scope',
    scope: 'assets:write',
    summary: 'Declare that one asset depends on another',
    unrestrictedOnly: true,
    body: DependencyLinkCreate,
    response: DependencyLink,
    successStatus: 201,
  }),
  'dependencies.deleteLink': defineRoute({
    name: 'dependencies.deleteLink',
    surface: 'v2',
    method: 'DELETE',
    path: '/dependencies/links/{id}',
    auth: 'scope',
    scope: 'assets:write',
    summary: 'Remove a declared link',
    unrestrictedOnly: true,
    params: IdParams,
    response: DependencyLink,
  }),
  'dependencies.blastRadius': defineRoute({
    name: 'dependencies.blastRadius',
    surface: 'v2',
    method: 'GET',
    path: '/assets/{id}/blast-radius',
    auth: 'scope',
    scope: 'topology:read',
    summary: 'What breaks if this asset goes down: what depends on it, directly or transitively',
    description:
      'Computed on the graph the caller sees (GET /dependencies): a key restricted by allowed_assets sees ' +
      'only dependents it may see, and nothing about the others (not even how many).',
    asset: assetParam,
    params: IdParams,
    query: BlastRadiusQuery,
    response: BlastRadius,
  }),
} satisfies Record<string, RouteContract>;
