/**
 * Contracts the interface fixes whose areas are not built yet. They are registered, guarded like every other
 * route, and answer 501 `not_implemented` naming the issue that builds them. That issue moves them into
 * `api/<area>.ts` beside their schemas, named after the hub module that handles them (keeping `operationId`
 * where a name changes).
 */
import type { AssetRef, HttpMethod, RouteContract } from '../contract.js';
import type { Scope } from '../scopes.js';
import { IdNameParams, IdParams, assetParam } from './shared.js';

/** A contract whose behaviour a later issue builds. */
export type PlannedContract = RouteContract & { plannedIn: string };

/** A v2 route whose contract is fixed now and whose behaviour a later issue builds (501 until then). */
function planned(
  name: string,
  method: HttpMethod,
  path: string,
  scope: Scope,
  summary: string,
  plannedIn: string,
  asset?: AssetRef,
): PlannedContract {
  const params = path.includes('{name}') ? IdNameParams : path.includes('{id}') ? IdParams : undefined;
  return {
    name,
    surface: 'v2',
    method,
    path,
    auth: 'scope',
    scope,
    summary,
    plannedIn,
    ...(asset ? { asset } : {}),
    ...(params ? { params } : {}),
  };
}

/** A route outside `/api/v2` (or with a role guard) that a later issue builds. */
function plannedOther(
  name: string,
  surface: RouteContract['surface'],
  auth: RouteContract['auth'],
  method: HttpMethod,
  path: string,
  summary: string,
  plannedIn: string,
): PlannedContract {
  return { name, surface, method, path, auth, summary, plannedIn };
}

/** The next issues, by the areas they build. */
const CONNECTORS = 'the containers and connectors issue';

export const plannedContracts = {
  'nas.pools': planned(
    'nas.pools',
    'GET',
    '/nas/assets/{id}/pools',
    'connectors:read',
    'TrueNAS pools',
    CONNECTORS,
    assetParam,
  ),
  'nas.datasets': planned(
    'nas.datasets',
    'GET',
    '/nas/assets/{id}/datasets',
    'connectors:read',
    'TrueNAS datasets',
    CONNECTORS,
    assetParam,
  ),
  'stacks.list': planned(
    'stacks.list',
    'GET',
    '/stacks/assets/{id}/stacks',
    'connectors:read',
    'Portainer stacks',
    CONNECTORS,
    assetParam,
  ),
  'settings.meshvpnServe': plannedOther(
    'settings.meshvpnServe',
    'console',
    'authenticated',
    'GET',
    '/settings/meshvpn/serve',
    'Tailscale HTTPS host detection and serve status',
    CONNECTORS,
  ),
} satisfies Record<string, PlannedContract>;
