/** Home Assistant states → the hub's entities; which service calls are allowed. Pure. */
import { homeautoControlDomains, homeautoEntityIdPattern, type HomeautoEntity } from '@svc/protocol';
import type { HomeAssistantState } from './homeauto.upstream.js';

const controlDomains: ReadonlySet<string> = new Set(homeautoControlDomains);
const entityId = new RegExp(homeautoEntityIdPattern);

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** Home Assistant's `+00:00` offsets and microseconds, as an RFC 3339 instant the hub's schemas accept. */
function instant(value: string): string {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? new Date(0).toISOString() : new Date(ms).toISOString();
}

function domainOf(entity: string): string {
  return entity.slice(0, entity.indexOf('.'));
}

export function toEntity(state: HomeAssistantState): HomeautoEntity {
  const domain = domainOf(state.entity_id);
  return {
    entity_id: state.entity_id,
    domain,
    name: text(state.attributes.friendly_name) ?? state.entity_id,
    state: state.state,
    unit: text(state.attributes.unit_of_measurement),
    device_class: text(state.attributes.device_class),
    last_changed: instant(state.last_changed),
    controllable: controlDomains.has(domain),
  };
}

/** Valid entities, sorted by id, optionally of one domain (an id Home Assistant would refuse is dropped). */
export function toEntities(states: readonly HomeAssistantState[], domain?: string): HomeautoEntity[] {
  return states
    .filter((s) => entityId.test(s.entity_id) && (domain === undefined || domainOf(s.entity_id) === domain))
    .map(toEntity)
    .sort((a, b) => a.entity_id.localeCompare(b.entity_id));
}

/** Service data keys that would retarget the call beyond the entities named (areas, devices, labels). */
const targetKeys = new Set(['entity_id', 'device_id', 'area_id', 'floor_id', 'label_id']);

/** The first problem of a service call, by field, or null. Pure; the route's schema has checked the shapes. */
export function serviceCallProblem(
  domain: string,
  entities: readonly string[],
  data: Readonly<Record<string, unknown>> | undefined,
): { field: string; problem: string } | null {
  if (!controlDomains.has(domain)) return { field: 'domain', problem: `${domain} is not a device domain` };
  const foreign = entities.find((e) => domainOf(e) !== domain);
  if (foreign !== undefined) {
    return { field: 'entity_id', problem: `${foreign} is not a ${domain} entity` };
  }
  const target = Object.keys(data ?? {}).find((k) => targetKeys.has(k));
  if (target !== undefined) return { field: `data.${target}`, problem: 'targets go in entity_id only' };
  return null;
}
