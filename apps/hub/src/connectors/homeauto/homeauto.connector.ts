/** The Home Assistant driver: the instance is one asset; its entities and service calls go through it. */
import type { HomeautoEntity } from '@svc/protocol';
import type { ConnectorDriver, UpstreamContext } from '../base/connector.js';
import { UpstreamError } from '../base/upstream-error.js';
import { createHomeAssistantClient } from './homeauto.client.js';
import { toEntities, toEntity } from './homeauto.mapping.js';

const homeautoExternalId = 'instance';

export const homeautoDriver: ConnectorDriver = {
  kind: 'homeauto',
  async check(ctx) {
    await createHomeAssistantClient(ctx).ping();
  },
  async inventory(ctx) {
    const name = await createHomeAssistantClient(ctx).locationName();
    return [
      {
        externalId: homeautoExternalId,
        kind: 'homeauto',
        name: name ?? ctx.connector.name,
        hostname: new URL(ctx.connector.baseUrl).hostname,
        status: 'online',
      },
    ];
  },
};

export async function homeautoEntities(ctx: UpstreamContext, domain?: string): Promise<HomeautoEntity[]> {
  return toEntities(await createHomeAssistantClient(ctx).states(), domain);
}

/** One entity, or null when Home Assistant does not know it (its 404 `Entity not found.`). */
export async function homeautoEntity(ctx: UpstreamContext, entityId: string): Promise<HomeautoEntity | null> {
  try {
    return toEntity(await createHomeAssistantClient(ctx).state(entityId));
  } catch (error) {
    if (error instanceof UpstreamError && error.status === 404) return null;
    throw error;
  }
}

/**
 * The ids Home Assistant does not know, each read by its own path (404 `Entity not found.`): a service call
 * on an unknown entity answers 200 with an empty list there, which would read as success.
 */
export async function unknownHomeautoEntities(
  ctx: UpstreamContext,
  entityIds: readonly string[],
): Promise<string[]> {
  const unknown: string[] = [];
  for (const id of entityIds) if ((await homeautoEntity(ctx, id)) === null) unknown.push(id);
  return unknown;
}

/**
 * Calls the service and answers the targeted entities' states after it: those the call reported changed,
 * the others read again (the changed list can miss them, and can name unrelated entities).
 */
export async function callHomeautoService(
  ctx: UpstreamContext,
  domain: string,
  service: string,
  entityIds: readonly string[],
  data: Readonly<Record<string, string | number | boolean>>,
): Promise<HomeautoEntity[]> {
  const client = createHomeAssistantClient(ctx);
  const changed = await client.callService(domain, service, { ...data, entity_id: [...entityIds] });
  const byId = new Map(changed.filter((s) => entityIds.includes(s.entity_id)).map((s) => [s.entity_id, s]));
  const entities: HomeautoEntity[] = [];
  for (const id of entityIds) {
    const known = byId.get(id);
    if (known) {
      entities.push(toEntity(known));
      continue;
    }
    const current = await homeautoEntity(ctx, id);
    if (current) entities.push(current);
  }
  return entities;
}
