/**
 * Portainer through the connector's egress client: `X-API-Key` on every request, bare JSON answers, errors as
 * `{"message","details"}`. `/api/endpoints` is paged with `start`/`limit` and its total in `X-Total-Count`;
 * `start` counts from 1 (Portainer's endpoint_list.go decrements any non-zero `start`, so `start=0` and
 * `start=1` both mean the first item, and a 0-based walk repeats the last item of every page);
 * `/api/stacks` is not paged.
 */
import type { UpstreamContext } from '../base/connector.js';
import { UpstreamError } from '../base/upstream-error.js';
import { parseUpstream, type UpstreamAnswer, type UpstreamHttp } from '../base/upstream-http.js';
import {
  PortainerEndpoints,
  PortainerStacks,
  type PortainerEndpoint,
  type PortainerStack,
} from './stacks.upstream.js';

const pageSize = 100;
/** Endpoints read at most (a homelab has a handful; this bounds a misbehaving upstream's paging). */
const maxEndpoints = 2_000;

/** `HTTP 401 Unauthorized: Unauthorized (A valid authorisation token is missing)` */
function portainerErrorReason(answer: UpstreamAnswer): string {
  const line = `HTTP ${String(answer.status)}${answer.statusText ? ` ${answer.statusText}` : ''}`;
  try {
    const body = JSON.parse(answer.text) as { message?: unknown; details?: unknown };
    const message = typeof body.message === 'string' ? body.message : '';
    const details = typeof body.details === 'string' && body.details !== '' ? ` (${body.details})` : '';
    return message ? `${line}: ${message}${details}` : line;
  } catch {
    return line;
  }
}

export interface PortainerClient {
  version(): Promise<void>;
  endpoints(): Promise<PortainerEndpoint[]>;
  stacks(endpointId: number): Promise<PortainerStack[]>;
}

export function createPortainerClient(ctx: UpstreamContext): PortainerClient {
  const http: UpstreamHttp = ctx.http({
    headers: { 'x-api-key': ctx.connector.credentials },
    describeError: portainerErrorReason,
  });
  return {
    async version() {
      await http.getJson('/api/system/version');
    },
    async endpoints() {
      const all: PortainerEndpoint[] = [];
      for (let start = 1; start <= maxEndpoints; start += pageSize) {
        const answer = await http.send('GET', '/api/endpoints', { query: { start, limit: pageSize } });
        if (answer.status < 200 || answer.status >= 300) {
          throw new UpstreamError('http', portainerErrorReason(answer), answer.status);
        }
        let body: unknown;
        try {
          body = JSON.parse(answer.text);
        } catch {
          throw new UpstreamError('malformed', `answer is not JSON (HTTP ${String(answer.status)})`);
        }
        const page = parseUpstream(PortainerEndpoints, body, 'Portainer endpoints');
        all.push(...page);
        const total = Number(answer.headers['x-total-count']);
        if (page.length < pageSize || (Number.isFinite(total) && all.length >= total)) break;
      }
      return all;
    },
    async stacks(endpointId) {
      const body = await http.getJson('/api/stacks', { filters: JSON.stringify({ EndpointID: endpointId }) });
      return parseUpstream(PortainerStacks, body, 'Portainer stacks');
    },
  };
}
