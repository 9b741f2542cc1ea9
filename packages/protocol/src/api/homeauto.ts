/**
 * Home automation (Home Assistant): the entities of a Home Assistant asset a connector brought, with their
 * states, and service calls that control devices. Decision 0024 says which calls are allowed and why.
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { Maybe, Timestamp, assetParam, literals, paged } from './shared.js';

/** `light`, `media_player`: lowercase words joined by single underscores, as Home Assistant validates them. */
const slug = '[a-z0-9]+(_[a-z0-9]+)*';
export const homeautoEntityIdPattern = `^${slug}\\.${slug}$`;
export const homeautoServicePattern = `^${slug}$`;

const EntityId = Type.String({ pattern: homeautoEntityIdPattern, maxLength: 255 });

/**
 * The domains whose services the hub calls: devices and the scenes and scripts a person set up. Not
 * `homeassistant`, `hassio`, `shell_command`, `rest_command`, `notify`, `recorder`, `system_log` and the like:
 * they act on the Home Assistant host or reach elsewhere, beyond controlling a device.
 */
export const homeautoControlDomains = [
  'light',
  'switch',
  'fan',
  'cover',
  'lock',
  'climate',
  'media_player',
  'input_boolean',
  'scene',
  'script',
  'button',
  'vacuum',
  'valve',
  'humidifier',
  'siren',
  'water_heater',
] as const;
export type HomeautoControlDomain = (typeof homeautoControlDomains)[number];

export const homeautoLimits = { entitiesPerCall: 50, dataKeys: 16, dataTextLength: 256 } as const;

export const HomeautoEntity = Type.Object({
  entity_id: Type.String(),
  domain: Type.String(),
  /** `friendly_name`, or the entity id when it has none. */
  name: Type.String(),
  /** Always text, as Home Assistant keeps it: `on`, `21.5`, `unavailable`, `unknown`. */
  state: Type.String(),
  unit: Maybe(Type.String()),
  device_class: Maybe(Type.String()),
  last_changed: Timestamp,
  /** Its domain's services can be called through the hub (a device, a scene or a script). */
  controllable: Type.Boolean(),
});
export type HomeautoEntity = Static<typeof HomeautoEntity>;

export const HomeautoEntityParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  entity_id: EntityId,
});

export const HomeautoServiceParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  domain: literals(homeautoControlDomains),
  service: Type.String({ pattern: homeautoServicePattern, maxLength: 64 }),
});

const DataValue = Type.Union([
  Type.String({ maxLength: homeautoLimits.dataTextLength }),
  Type.Number(),
  Type.Boolean(),
]);

export const HomeautoServiceCall = Type.Object(
  {
    /** The entities the call targets; each must belong to the service's domain. */
    entity_id: Type.Array(EntityId, {
      minItems: 1,
      maxItems: homeautoLimits.entitiesPerCall,
      uniqueItems: true,
    }),
    /** Service fields (`brightness_pct`, `temperature`): scalars only; targets go in `entity_id` alone. */
    data: Type.Optional(
      Type.Record(Type.String({ pattern: homeautoServicePattern, maxLength: 64 }), DataValue, {
        maxProperties: homeautoLimits.dataKeys,
      }),
    ),
  },
  { additionalProperties: false },
);
export type HomeautoServiceCall = Static<typeof HomeautoServiceCall>;

export const HomeautoServiceResult = Type.Object({
  /** `light.turn_on` */
  service: Type.String(),
  /** The targeted entities' states after the call (other entities that changed meanwhile are left out). */
  entities: Type.Array(HomeautoEntity),
});
export type HomeautoServiceResult = Static<typeof HomeautoServiceResult>;

export const HomeautoEntityQuery = paged(
  Type.Object({ domain: Type.Optional(Type.String({ pattern: homeautoServicePattern, maxLength: 64 })) }),
);

export const homeautoContracts = {
  'homeauto.entities': defineRoute({
    name: 'homeauto.entities',
    surface: 'v2',
    method: 'GET',
    path: '/homeauto/assets/{id}/entities',
    auth: 'scope',
    scope: 'homeauto:read',
    summary: 'Home Assistant entities with their states',
    description: 'Sorted by entity id; `domain` filters (`light`, `sensor`).',
    asset: assetParam,
    params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
    query: HomeautoEntityQuery,
    response: HomeautoEntity,
    list: true,
  }),
  'homeauto.entity': defineRoute({
    name: 'homeauto.entity',
    surface: 'v2',
    method: 'GET',
    path: '/homeauto/assets/{id}/entities/{entity_id}',
    auth: 'scope',
    scope: 'homeauto:read',
    summary: 'One Home Assistant entity and its state',
    asset: assetParam,
    params: HomeautoEntityParams,
    response: HomeautoEntity,
  }),
  'homeauto.callService': defineRoute({
    name: 'homeauto.callService',
    surface: 'v2',
    method: 'POST',
    path: '/homeauto/assets/{id}/services/{domain}/{service}',
    auth: 'scope',
    scope: 'homeauto:write',
    summary: 'Call a Home Assistant service on entities (turn on a light, lock a door)',
    description:
      'Only device domains (and scenes and scripts); every target entity must belong to the domain. Audited; refused while policy.connector_enabled is off.',
    asset: assetParam,
    params: HomeautoServiceParams,
    body: HomeautoServiceCall,
    response: HomeautoServiceResult,
  }),
} satisfies Record<string, RouteContract>;
