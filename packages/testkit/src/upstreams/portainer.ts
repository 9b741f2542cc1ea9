/**
 * A fake Portainer (CE 2.x), faithful to what the hub reads (../shared/design/upstreams.md §4): `X-API-Key`
 * (or a JWT as `Authorization: Bearer`), bare JSON with PascalCase keys, `/api/endpoints` paged by `start` and
 * `limit` with `X-Total-Count` / `X-Total-Available` (`start` counts from 1 as in Portainer's endpoint_list.go:
 * a non-zero `start` is decremented, so 0 and 1 both mean the first item), `/api/stacks` unpaged and filtered by
 * `filters={"EndpointID":n}`, integers for `Type`, `Status` and epoch-second dates, `null` where a list is
 * empty, and errors as `{"message","details"}`.
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

export interface PortainerEndpointFixture {
  Id: number;
  Name: string;
  /** 1 docker, 2 agent, 3 azure, 4 edge agent, 5 local k8s, 6 k8s agent, 7 edge k8s */
  Type: number;
  URL: string;
  /** 1 up, 2 down */
  Status: number;
  runningContainers: number;
  dockerVersion: string;
}

export interface PortainerStackFixture {
  Id: number;
  Name: string;
  /** 1 swarm, 2 compose, 3 kubernetes */
  Type: number;
  EndpointId: number;
  /** 1 active, 2 inactive */
  Status: number;
  CreationDate: number;
  UpdateDate: number;
  Env: { name: string; value: string }[] | null;
}

export interface FakePortainer extends FakeUpstreamServer {
  apiKey: string;
  endpoints: PortainerEndpointFixture[];
  stacks: PortainerStackFixture[];
}

export function defaultPortainerEndpoints(): PortainerEndpointFixture[] {
  return [
    {
      Id: 1,
      Name: 'local',
      Type: 1,
      URL: 'unix:///var/run/docker.sock',
      Status: 1,
      runningContainers: 7,
      dockerVersion: '27.3.1',
    },
    {
      Id: 3,
      Name: 'edge-pi',
      Type: 4,
      URL: '',
      Status: 2,
      runningContainers: 0,
      dockerVersion: '26.1.4',
    },
  ];
}

export function defaultPortainerStacks(): PortainerStackFixture[] {
  return [
    {
      Id: 2,
      Name: 'media',
      Type: 2,
      EndpointId: 1,
      Status: 1,
      CreationDate: 1_761_000_000,
      UpdateDate: 1_763_500_000,
      Env: [{ name: 'TZ', value: 'Europe/Berlin' }],
    },
    {
      Id: 5,
      Name: 'monitoring',
      Type: 2,
      EndpointId: 1,
      Status: 2,
      CreationDate: 1_762_000_000,
      UpdateDate: 0,
      Env: null,
    },
    {
      Id: 7,
      Name: 'pihole',
      Type: 2,
      EndpointId: 3,
      Status: 1,
      CreationDate: 1_760_000_000,
      UpdateDate: 0,
      Env: [],
    },
  ];
}

function endpointRecord(e: PortainerEndpointFixture) {
  return {
    Id: e.Id,
    Name: e.Name,
    Type: e.Type,
    URL: e.URL,
    GroupId: 1,
    PublicURL: '',
    Status: e.Status,
    TagIds: [],
    EdgeID: e.Type === 4 ? 'edge-7f1c' : '',
    Snapshots:
      e.Status === 1
        ? [
            {
              Time: 1_764_000_000,
              DockerVersion: e.dockerVersion,
              Swarm: false,
              TotalCPU: 4,
              TotalMemory: 16_655_990_784,
              RunningContainerCount: e.runningContainers,
              StoppedContainerCount: 1,
              HealthyContainerCount: 2,
              UnhealthyContainerCount: 0,
              VolumeCount: 9,
              ImageCount: 12,
              ServiceCount: 0,
              StackCount: 2,
            },
          ]
        : [],
    Kubernetes: { Snapshots: null },
  };
}

function stackRecord(s: PortainerStackFixture) {
  return {
    Id: s.Id,
    Name: s.Name,
    Type: s.Type,
    EndpointId: s.EndpointId,
    SwarmId: '',
    EntryPoint: 'docker-compose.yml',
    Env: s.Env,
    ResourceControl: null,
    Status: s.Status,
    ProjectPath: `/data/compose/${String(s.Id)}`,
    CreationDate: s.CreationDate,
    CreatedBy: 'admin',
    UpdateDate: s.UpdateDate,
    UpdatedBy: s.UpdateDate ? 'admin' : '',
    AdditionalFiles: null,
    AutoUpdate: null,
    Option: null,
    GitConfig: null,
    FromAppTemplate: false,
    Namespace: '',
    IsComposeFormat: false,
  };
}

export async function startFakePortainer(
  options: { apiKey?: string; slowMs?: number } = {},
): Promise<FakePortainer> {
  const apiKey = options.apiKey ?? 'ptr_fakePortainerKey0123456789abcdefghijklmnopqr=';
  const endpoints = defaultPortainerEndpoints();
  const stacks = defaultPortainerStacks();

  const handle = (request: FakeRequest): FakeAnswer => {
    const { path: pathname, query } = request;
    if (pathname === '/api/system/status')
      return json(200, { Version: '2.21.4', InstanceID: 'fake-portainer' });
    if (request.headers['x-api-key'] !== apiKey) {
      return json(401, { message: 'Unauthorized', details: 'A valid authorisation token is missing' });
    }
    if (request.method !== 'GET') return json(405, { message: 'Method Not Allowed', details: '' });
    if (pathname === '/api/system/version') {
      return json(200, { ServerVersion: '2.21.4', DatabaseVersion: '2.21.4', Build: { BuildNumber: '1' } });
    }
    if (pathname === '/api/endpoints') {
      const requested = Number(query.get('start') ?? 0);
      const start = requested > 0 ? requested - 1 : 0;
      const limit = Number(query.get('limit') ?? 0);
      const all = endpoints.map(endpointRecord);
      const slice = limit > 0 ? all.slice(start, start + limit) : all;
      return json(200, slice, {
        'x-total-count': String(all.length),
        'x-total-available': String(all.length),
      });
    }
    if (pathname === '/api/stacks') {
      const filters = query.get('filters');
      let wanted: number | undefined;
      if (filters) {
        try {
          const parsed = JSON.parse(filters) as { EndpointID?: unknown };
          if (typeof parsed.EndpointID === 'number') wanted = parsed.EndpointID;
        } catch {
          return json(400, { message: 'Invalid query parameter: filters', details: 'invalid character' });
        }
      }
      return json(
        200,
        stacks.filter((s) => wanted === undefined || s.EndpointId === wanted).map(stackRecord),
      );
    }
    const stack = /^\/api\/stacks\/(\d+)$/.exec(pathname);
    if (stack) {
      const found = stacks.find((s) => s.Id === Number(stack[1]));
      return found
        ? json(200, stackRecord(found))
        : json(404, {
            message: 'Unable to find a stack with the specified identifier inside the database',
            details: 'object not found inside the database',
          });
    }
    return json(404, { message: 'Not found', details: '' });
  };

  const fake = (await startUpstreamServer({
    handle,
    ...(options.slowMs ? { slowMs: options.slowMs } : {}),
    failures: {
      unauthorized: { status: 401, body: '' },
      server_error: json(500, {
        message: 'Unable to retrieve environments from the database',
        details: 'database error',
      }),
    },
  })) as FakePortainer;
  return Object.assign(fake, { apiKey, endpoints, stacks });
}
