/**
 * Contracts the interface fixes whose areas are not built yet. They are registered, guarded like every other
 * route, and answer 501 `not_implemented` naming the issue that builds them. That issue moves them into
 * `api/<area>.ts` beside their schemas, named after the hub module that handles them (keeping `operationId`
 * where a name changes).
 */
import type { AssetRef, HttpMethod, RouteContract } from '../contract.js';
import type { Scope } from '../scopes.js';
import { IdNameParams, IdParams, assetParam, compoundParam } from './shared.js';

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

/** The next issues, by the areas they build. */
const CONNECTORS = 'the containers and connectors issue';

export const plannedContracts = {
  'container.hosts': planned(
    'container.hosts',
    'GET',
    '/container/hosts',
    'container:read',
    'List container hosts',
    CONNECTORS,
  ),
  'container.list': planned(
    'container.list',
    'GET',
    '/container/hosts/{id}/containers',
    'container:read',
    'List containers of a host',
    CONNECTORS,
    assetParam,
  ),
  'container.start': planned(
    'container.start',
    'POST',
    '/container/containers/{id}/start',
    'container:write',
    'Start a container',
    CONNECTORS,
    compoundParam,
  ),
  'container.stop': planned(
    'container.stop',
    'POST',
    '/container/containers/{id}/stop',
    'container:write',
    'Stop a container',
    CONNECTORS,
    compoundParam,
  ),
  'container.restart': planned(
    'container.restart',
    'POST',
    '/container/containers/{id}/restart',
    'container:write',
    'Restart a container',
    CONNECTORS,
    compoundParam,
  ),
  'container.logs': planned(
    'container.logs',
    'GET',
    '/container/containers/{id}/logs',
    'container:read',
    'Container logs',
    CONNECTORS,
    compoundParam,
  ),
  'container.stack': planned(
    'container.stack',
    'GET',
    '/container/stacks/{id}',
    'container:read',
    'Compose stack details',
    CONNECTORS,
    compoundParam,
  ),
  'discovery.run': {
    ...planned(
      'discovery.run',
      'POST',
      '/discovery/run',
      'discovery:write',
      'Trigger network discovery',
      CONNECTORS,
    ),
    unrestrictedOnly: true,
  },
} satisfies Record<string, PlannedContract>;
