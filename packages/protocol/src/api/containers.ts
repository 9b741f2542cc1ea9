/**
 * Containers through the agent (Docker Engine API on the host's socket): the hosts whose agent reached an
 * engine, their containers, images, volumes and compose stacks, start/stop/restart and logs. Container ids
 * are `<asset id>:<engine id>` and stack ids `<asset id>:<compose project>`, so every route authorizes the
 * asset first (docs/decisions/0020-containers.md).
 */
import { Type, type Static } from 'typebox';
import {
  ContainerLogEntry,
  ContainerPort,
  EngineImage,
  EngineVolume,
  containerLimits,
  containerRefPattern,
} from '../agent-messages.js';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { idPatternFor } from '../ids.js';
import { IdParams, Maybe, Timestamp, assetParam, compoundParam } from './shared.js';

const assetPart = idPatternFor('asset').slice(1, -1);
const refPart = containerRefPattern.slice(1, -1);

/** `<asset id>:<engine id>` or `<asset id>:<compose project>`, both parts checked. */
export const compoundIdPattern = `^${assetPart}:${refPart}$`;

export const CompoundParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, pattern: compoundIdPattern }),
});

export const ContainerHost = Type.Object({
  asset_id: Type.String(),
  name: Type.String(),
  hostname: Maybe(Type.String()),
  platform: Type.String(),
  agent_version: Maybe(Type.String()),
  connected_at: Timestamp,
});
export type ContainerHost = Static<typeof ContainerHost>;

export const Container = Type.Object({
  /** `<asset id>:<engine id>` */
  id: Type.String(),
  asset_id: Type.String(),
  engine_id: Type.String(),
  name: Type.String(),
  image: Type.String(),
  state: Type.String(),
  status: Type.String(),
  health: Maybe(Type.String()),
  created_at: Maybe(Type.String()),
  ports: Type.Array(ContainerPort),
  /** `<asset id>:<compose project>` when the container carries the compose label. */
  stack_id: Maybe(Type.String()),
  compose_project: Maybe(Type.String()),
  compose_service: Maybe(Type.String()),
});
export type Container = Static<typeof Container>;

export const ContainerActionResult = Type.Object({
  id: Type.String(),
  action: Type.String(),
  state: Type.String(),
  /** False when the engine said the container already was in that state (a 304). */
  changed: Type.Boolean(),
});
export type ContainerActionResult = Static<typeof ContainerActionResult>;

export const ContainerLogsQuery = Type.Object(
  {
    tail: Type.Optional(Type.Integer({ minimum: 1, maximum: containerLimits.logTailLines, default: 200 })),
    since: Type.Optional(Type.String({ format: 'date-time' })),
    timestamps: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type ContainerLogsQuery = Static<typeof ContainerLogsQuery>;

export const ContainerLogs = Type.Object({
  id: Type.String(),
  tty: Type.Boolean(),
  entries: Type.Array(ContainerLogEntry),
  truncated: Type.Boolean(),
});
export type ContainerLogs = Static<typeof ContainerLogs>;

export const ContainerImage = Type.Object({ asset_id: Type.String(), ...EngineImage.properties });
export type ContainerImage = Static<typeof ContainerImage>;

export const ContainerVolume = Type.Object({ asset_id: Type.String(), ...EngineVolume.properties });
export type ContainerVolume = Static<typeof ContainerVolume>;

export const ContainerStack = Type.Object({
  /** `<asset id>:<compose project>` */
  id: Type.String(),
  asset_id: Type.String(),
  project: Type.String(),
  /** running containers / all containers of the project */
  running: Type.Integer({ minimum: 0 }),
  total: Type.Integer({ minimum: 0 }),
  services: Type.Array(Type.String()),
  containers: Type.Array(Container),
});
export type ContainerStack = Static<typeof ContainerStack>;

const containerAction = (action: 'start' | 'stop' | 'restart', summary: string) =>
  defineRoute({
    name: `containers.${action}`,
    operationId: `container.${action}`,
    surface: 'v2',
    method: 'POST',
    path: `/container/containers/{id}/${action}`,
    auth: 'scope',
    scope: 'container:write',
    summary,
    asset: compoundParam,
    params: CompoundParams,
    response: ContainerActionResult,
  } as const);

export const containersContracts = {
  'containers.hosts': defineRoute({
    name: 'containers.hosts',
    operationId: 'container.hosts',
    surface: 'v2',
    method: 'GET',
    path: '/container/hosts',
    auth: 'scope',
    scope: 'container:read',
    summary: 'List container hosts (online assets whose agent reached a container engine)',
    query: PaginationQuery,
    response: ContainerHost,
    list: true,
  }),
  'containers.list': defineRoute({
    name: 'containers.list',
    operationId: 'container.list',
    surface: 'v2',
    method: 'GET',
    path: '/container/hosts/{id}/containers',
    auth: 'scope',
    scope: 'container:read',
    summary: 'List containers of a host',
    asset: assetParam,
    params: IdParams,
    query: PaginationQuery,
    response: Container,
    list: true,
  }),
  'containers.start': containerAction('start', 'Start a container'),
  'containers.stop': containerAction('stop', 'Stop a container'),
  'containers.restart': containerAction('restart', 'Restart a container'),
  'containers.logs': defineRoute({
    name: 'containers.logs',
    operationId: 'container.logs',
    surface: 'v2',
    method: 'GET',
    path: '/container/containers/{id}/logs',
    auth: 'scope',
    scope: 'container:read',
    readsSecrets: true,
    summary: 'Container logs (tail, since)',
    asset: compoundParam,
    params: CompoundParams,
    query: ContainerLogsQuery,
    response: ContainerLogs,
  }),
  'containers.stack': defineRoute({
    name: 'containers.stack',
    operationId: 'container.stack',
    surface: 'v2',
    method: 'GET',
    path: '/container/stacks/{id}',
    auth: 'scope',
    scope: 'container:read',
    summary: 'Compose stack details (containers by their com.docker.compose.project label)',
    asset: compoundParam,
    params: CompoundParams,
    response: ContainerStack,
  }),
  'containers.stacks': defineRoute({
    name: 'containers.stacks',
    operationId: 'container.stacks',
    surface: 'v2',
    method: 'GET',
    path: '/container/hosts/{id}/stacks',
    auth: 'scope',
    scope: 'container:read',
    summary: 'Compose stacks of a host',
    asset: assetParam,
    params: IdParams,
    query: PaginationQuery,
    response: ContainerStack,
    list: true,
  }),
  'containers.images': defineRoute({
    name: 'containers.images',
    operationId: 'container.images',
    surface: 'v2',
    method: 'GET',
    path: '/container/hosts/{id}/images',
    auth: 'scope',
    scope: 'container:read',
    summary: 'Images of a host',
    asset: assetParam,
    params: IdParams,
    query: PaginationQuery,
    response: ContainerImage,
    list: true,
  }),
  'containers.volumes': defineRoute({
    name: 'containers.volumes',
    operationId: 'container.volumes',
    surface: 'v2',
    method: 'GET',
    path: '/container/hosts/{id}/volumes',
    auth: 'scope',
    scope: 'container:read',
    summary: 'Volumes of a host',
    asset: assetParam,
    params: IdParams,
    query: PaginationQuery,
    response: ContainerVolume,
    list: true,
  }),
} satisfies Record<string, RouteContract>;
