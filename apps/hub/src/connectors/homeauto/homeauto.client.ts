/**
 * Home Assistant's REST API through the connector's egress client: `Authorization: Bearer <long-lived token>`,
 * bare JSON, aiohttp's text error bodies (`401: Unauthorized`). `/api/states` is the whole state machine and
 * can be megabytes: the read is capped, and one entity is read by its own path.
 */
import type { UpstreamContext } from '../base/connector.js';
import { parseUpstream, type UpstreamHttp } from '../base/upstream-http.js';
import {
  HomeAssistantApiStatus,
  HomeAssistantConfig,
  HomeAssistantState,
  HomeAssistantStates,
} from './homeauto.upstream.js';

/** The original's cap on `/api/states` (upstreams.md §5). */
const maxStatesBytes = 32 * 1024 * 1024;

export interface HomeAssistantClient {
  ping(): Promise<void>;
  locationName(): Promise<string | null>;
  states(): Promise<HomeAssistantState[]>;
  state(entityId: string): Promise<HomeAssistantState>;
  /** The changed states Home Assistant answers (they may include unrelated changes, or be empty). */
  callService(domain: string, service: string, data: Record<string, unknown>): Promise<HomeAssistantState[]>;
}

export function createHomeAssistantClient(ctx: UpstreamContext): HomeAssistantClient {
  const http: UpstreamHttp = ctx.http({
    headers: { authorization: `Bearer ${ctx.connector.credentials}` },
    maxBodyBytes: maxStatesBytes,
  });
  return {
    async ping() {
      parseUpstream(HomeAssistantApiStatus, await http.getJson('/api/'), 'Home Assistant API status');
    },
    async locationName() {
      const config = parseUpstream(
        HomeAssistantConfig,
        await http.getJson('/api/config'),
        'Home Assistant config',
      );
      return config.location_name ?? null;
    },
    async states() {
      return parseUpstream(HomeAssistantStates, await http.getJson('/api/states'), 'Home Assistant states');
    },
    async state(entityId) {
      const body = await http.getJson(`/api/states/${encodeURIComponent(entityId)}`);
      return parseUpstream(HomeAssistantState, body, 'Home Assistant state');
    },
    async callService(domain, service, data) {
      const body = await http.sendJson('POST', `/api/services/${domain}/${service}`, { json: data });
      return parseUpstream(HomeAssistantStates, body ?? [], 'Home Assistant service call');
    },
  };
}
