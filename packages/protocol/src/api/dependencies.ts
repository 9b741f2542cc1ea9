/**
 * The infrastructure graph: assets as nodes, edges from what connectors and agents report (a hypervisor hosts
 * its guests, storage lives on a node, a backup server backs up guests) and links people declare
 * (docs/decisions/0023-dependency-graph.md).
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { AssetId, Description, IdParams, Maybe, Timestamp, literals } from './shared.js';

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
} satisfies Record<string, RouteContract>;
