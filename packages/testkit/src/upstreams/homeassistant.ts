/**
 * A fake Home Assistant REST API, faithful to what the hub reads and calls (../shared/design/upstreams.md §5):
 * `Authorization: Bearer <long-lived token>`, aiohttp's text bodies for 400/401/404/405 (`401: Unauthorized`),
 * `{"message": "Entity not found."}` for an unknown entity, bare JSON states whose `state` is always a string,
 * `/api/services` as `[{domain, services:{name:{...}}}]`, and a service call that answers the changed states
 * (turning a light on changes its state and `last_changed`).
 */
import {
  startUpstreamServer,
  type FakeAnswer,
  type FakeRequest,
  type FakeUpstreamServer,
} from './upstream-server.js';

const json = (status: number, body: unknown, headers?: Record<string, string>): FakeAnswer => ({
  status,
  body,
  ...(headers ? { headers } : {}),
});
const text = (status: number, body: string): FakeAnswer => ({
  status,
  body,
  contentType: 'text/plain; charset=utf-8',
});

export interface HomeAssistantState {
  entity_id: string;
  state: string;
  attributes: Record<string, unknown>;
  last_changed: string;
  last_reported: string;
  last_updated: string;
  context: { id: string; parent_id: string | null; user_id: string | null };
}

export interface FakeHomeAssistant extends FakeUpstreamServer {
  token: string;
  states: Map<string, HomeAssistantState>;
  /** Service calls received: `domain.service` and the data sent. */
  serviceCalls: { service: string; data: unknown }[];
}

const at = '2026-11-25T20:00:00.000000+00:00';
let contextCounter = 0;
function context(): HomeAssistantState['context'] {
  contextCounter += 1;
  return { id: `01JDF${String(contextCounter).padStart(21, '0')}`, parent_id: null, user_id: null };
}

function state(entity_id: string, value: string, attributes: Record<string, unknown>): HomeAssistantState {
  return {
    entity_id,
    state: value,
    attributes,
    last_changed: at,
    last_reported: at,
    last_updated: at,
    context: context(),
  };
}

export function defaultHomeAssistantStates(): HomeAssistantState[] {
  return [
    state('light.living_room', 'on', {
      friendly_name: 'Living room',
      brightness: 180,
      color_mode: 'brightness',
      supported_color_modes: ['brightness'],
      supported_features: 40,
    }),
    state('light.kitchen', 'off', {
      friendly_name: 'Kitchen',
      supported_color_modes: ['onoff'],
      color_mode: null,
    }),
    state('switch.rack_fan', 'on', { friendly_name: 'Rack fan' }),
    state('sensor.rack_temperature', '27.5', {
      friendly_name: 'Rack temperature',
      unit_of_measurement: '°C',
      device_class: 'temperature',
      state_class: 'measurement',
    }),
    state('sensor.ups_load', 'unavailable', { friendly_name: 'UPS load', unit_of_measurement: '%' }),
    state('binary_sensor.front_door', 'off', { friendly_name: 'Front door', device_class: 'door' }),
    state('sun.sun', 'below_horizon', { friendly_name: 'Sun', elevation: -12.4, rising: false }),
  ];
}

const toggleable = new Set(['light', 'switch', 'fan', 'input_boolean']);

export async function startFakeHomeAssistant(
  options: { token?: string; slowMs?: number } = {},
): Promise<FakeHomeAssistant> {
  const token =
    options.token ??
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJmYWtlLWhhIn0.fake-long-lived-access-token-signature';
  const states = new Map(defaultHomeAssistantStates().map((s) => [s.entity_id, s]));
  const serviceCalls: FakeHomeAssistant['serviceCalls'] = [];

  const services = () =>
    [...new Set([...states.keys()].map((id) => id.split('.')[0] ?? ''))].map((domain) => ({
      domain,
      services: toggleable.has(domain)
        ? {
            turn_on: {
              name: 'Turn on',
              description: 'Turns on',
              fields: {},
              target: { entity: [{ domain: [domain] }] },
            },
            turn_off: {
              name: 'Turn off',
              description: 'Turns off',
              fields: {},
              target: { entity: [{ domain: [domain] }] },
            },
            toggle: {
              name: 'Toggle',
              description: 'Toggles',
              fields: {},
              target: { entity: [{ domain: [domain] }] },
            },
          }
        : {},
    }));

  const callService = (domain: string, service: string, body: string): FakeAnswer => {
    let data: unknown = {};
    if (body.trim() !== '') {
      try {
        data = JSON.parse(body);
      } catch {
        return json(400, { message: 'Data should be valid JSON.' });
      }
    }
    if (!toggleable.has(domain) || !['turn_on', 'turn_off', 'toggle'].includes(service)) {
      return text(400, '400: Bad Request');
    }
    serviceCalls.push({ service: `${domain}.${service}`, data });
    const target = (data as { entity_id?: unknown }).entity_id;
    const ids = typeof target === 'string' ? [target] : Array.isArray(target) ? target.map(String) : [];
    const changed: HomeAssistantState[] = [];
    for (const id of ids) {
      const current = states.get(id);
      if (!current || !id.startsWith(`${domain}.`)) continue;
      const next =
        service === 'toggle' ? (current.state === 'on' ? 'off' : 'on') : service === 'turn_on' ? 'on' : 'off';
      if (next === current.state) continue;
      const now = new Date().toISOString().replace('Z', '000+00:00');
      const updated = {
        ...current,
        state: next,
        last_changed: now,
        last_updated: now,
        last_reported: now,
        context: context(),
      };
      states.set(id, updated);
      changed.push(updated);
    }
    return json(200, changed);
  };

  const handle = (request: FakeRequest): FakeAnswer => {
    const pathname = request.path;
    if (request.headers.authorization !== `Bearer ${token}`) return text(401, '401: Unauthorized');
    if (pathname === '/api/' && request.method === 'GET') return json(200, { message: 'API running.' });
    if (pathname === '/api/config' && request.method === 'GET') {
      return json(200, {
        location_name: 'Home',
        version: '2026.11.2',
        time_zone: 'Europe/Berlin',
        state: 'RUNNING',
      });
    }
    if (pathname === '/api/states') {
      return request.method === 'GET'
        ? json(200, [...states.values()])
        : text(405, '405: Method Not Allowed');
    }
    const single = /^\/api\/states\/([^/]+)$/.exec(pathname);
    if (single && request.method === 'GET') {
      const found = states.get(decodeURIComponent(single[1] ?? ''));
      return found ? json(200, found) : json(404, { message: 'Entity not found.' });
    }
    if (pathname === '/api/services' && request.method === 'GET') return json(200, services());
    const call = /^\/api\/services\/([^/]+)\/([^/]+)$/.exec(pathname);
    if (call) {
      if (request.method !== 'POST') return text(405, '405: Method Not Allowed');
      return callService(call[1] ?? '', call[2] ?? '', request.body);
    }
    return text(404, '404: Not Found');
  };

  const fake = (await startUpstreamServer({
    handle,
    ...(options.slowMs ? { slowMs: options.slowMs } : {}),
    failures: {
      unauthorized: { status: 401, body: '' },
      server_error: text(500, '500 Internal Server Error\n\nServer got itself in trouble'),
    },
  })) as FakeHomeAssistant;
  return Object.assign(fake, { token, states, serviceCalls });
}
