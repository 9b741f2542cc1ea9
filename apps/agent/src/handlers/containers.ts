/**
 * containers.*: the Docker Engine API (docker or podman's compat layer) on the configured endpoint. What the
 * engine answers is parsed field by field into the catalog's shapes, never passed through: podman and docker
 * differ (extra null fields, `Networks: null`, `Created` in seconds here and RFC 3339 there).
 */
import {
  containerLimits,
  type AgentRequestPayload,
  type AgentRequestResult,
  type ContainerPort,
  type EngineContainer,
  type EngineImage,
  type EngineVolume,
} from '@svc/protocol';
import { EngineError, type DockerEngine } from '../platform/docker-engine.js';
import { AgentError } from './agent-error.js';
import { logLines } from './container-logs.js';
import type { HandlerMap } from './types.js';

const composeProject = 'com.docker.compose.project';
const composeService = 'com.docker.compose.service';
const refPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** Seconds the engine waits for a container to stop before it kills it. */
const stopGraceSeconds = 10;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');
const maybeText = (v: unknown, max: number): string | null =>
  typeof v === 'string' && v !== '' ? v.slice(0, max) : null;

/** Epoch seconds (lists) or RFC 3339 (inspect, volumes) to ISO 8601; null for zero or unparseable values. */
export function isoTime(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    return new Date(value * 1000).toISOString();
  }
  if (typeof value === 'string' && value !== '' && !value.startsWith('0001-')) {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : new Date(ms).toISOString();
  }
  return null;
}

/** `Up 3 minutes (healthy)` → healthy; `(health: starting)` → starting; none without a health check. */
export function healthFromStatus(status: string): string | null {
  const match = /\((healthy|unhealthy|health: starting)\)/.exec(status);
  if (!match?.[1]) return null;
  return match[1] === 'health: starting' ? 'starting' : match[1];
}

function port(value: unknown): ContainerPort | null {
  if (!isObject(value)) return null;
  const privatePort = value.PrivatePort;
  if (typeof privatePort !== 'number' || !Number.isInteger(privatePort)) return null;
  const publicPort = value.PublicPort;
  return {
    private_port: Math.min(65535, Math.max(0, privatePort)),
    public_port:
      typeof publicPort === 'number' && Number.isInteger(publicPort) && publicPort > 0 && publicPort <= 65535
        ? publicPort
        : null,
    ip: maybeText(value.IP, 64),
    type: text(value.Type, 16) || 'tcp',
  };
}

function labelsOf(value: unknown): Json {
  return isObject(value) ? value : {};
}

/** One entry of `GET /containers/json?all=1`; null when it lacks a usable id. */
export function mapContainer(value: unknown): EngineContainer | null {
  if (!isObject(value)) return null;
  const id = text(value.Id, 128);
  if (!refPattern.test(id)) return null;
  const names = Array.isArray(value.Names) ? value.Names : [];
  const first = typeof names[0] === 'string' ? names[0] : '';
  const labels = labelsOf(value.Labels);
  const status = text(value.Status, 256);
  const ports = (Array.isArray(value.Ports) ? value.Ports : [])
    .map(port)
    .filter((p): p is ContainerPort => p !== null)
    .slice(0, containerLimits.portsPerContainer);
  return {
    id,
    name: first.replace(/^\//, '').slice(0, 256) || id.slice(0, 12),
    image: text(value.Image, 1024),
    state: text(value.State, 32) || 'unknown',
    status,
    health: healthFromStatus(status),
    created_at: isoTime(value.Created),
    ports,
    compose_project: maybeText(labels[composeProject], 256),
    compose_service: maybeText(labels[composeService], 256),
  };
}

export function mapImage(value: unknown): EngineImage | null {
  if (!isObject(value)) return null;
  const id = text(value.Id, 128);
  if (!id) return null;
  const tags = (Array.isArray(value.RepoTags) ? value.RepoTags : [])
    .filter((t): t is string => typeof t === 'string' && t !== '<none>:<none>')
    .map((t) => t.slice(0, 512))
    .slice(0, 256);
  const size = typeof value.Size === 'number' && value.Size > 0 ? Math.floor(value.Size) : 0;
  const containers =
    typeof value.Containers === 'number' && Number.isInteger(value.Containers) && value.Containers >= 0
      ? value.Containers
      : null;
  return { id, tags, size_bytes: size, created_at: isoTime(value.Created), containers };
}

export function mapVolume(value: unknown): EngineVolume | null {
  if (!isObject(value)) return null;
  const name = text(value.Name, 256);
  if (!name) return null;
  return {
    name,
    driver: text(value.Driver, 128),
    mountpoint: text(value.Mountpoint, 4096),
    created_at: isoTime(value.CreatedAt),
    compose_project: maybeText(labelsOf(value.Labels)['com.docker.compose.project'], 256),
  };
}

function bounded<T>(items: (T | null)[], max: number): { items: T[]; truncated: boolean } {
  const kept = items.filter((i): i is T => i !== null);
  return { items: kept.slice(0, max), truncated: kept.length > max };
}

/** Engine failures in the agent's catalog: an unreachable engine is `unsupported` on this host. */
function agentErrorFromEngine(error: unknown, subject: string): AgentError {
  if (error instanceof AgentError) return error;
  if (!(error instanceof EngineError)) {
    return new AgentError('failed', `${subject}: ${(error as Error | undefined)?.message ?? 'failed'}`);
  }
  switch (error.kind) {
    case 'unreachable':
    case 'refused':
      return new AgentError('unsupported', `no container engine: ${error.message}`);
    case 'not_found':
      return new AgentError('not_found', `${subject}: ${error.message}`);
    case 'timeout':
      return new AgentError('timeout', error.message);
    case 'failed':
      return new AgentError('failed', `${subject}: ${error.message}`);
  }
}

function checkRef(id: string): string {
  if (!refPattern.test(id)) throw new AgentError('invalid_argument', 'not a container id or name');
  return id;
}

async function inspect(engine: DockerEngine, id: string): Promise<Json> {
  const data = await engine.getJson(`/containers/${encodeURIComponent(id)}/json`);
  if (!isObject(data)) throw new EngineError('failed', `inspect ${id} answered no object`);
  return data;
}

type ContainerHandlers = Pick<
  HandlerMap,
  'containers.list' | 'containers.action' | 'containers.logs' | 'containers.images' | 'containers.volumes'
>;

export function createContainerHandlers(engine: DockerEngine): ContainerHandlers {
  const guarded = async <T>(subject: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw agentErrorFromEngine(error, subject);
    }
  };

  return {
    'containers.list': () =>
      guarded('containers', async () => {
        const data = await engine.getJson('/containers/json?all=1');
        const { items, truncated } = bounded(
          (Array.isArray(data) ? data : []).map(mapContainer),
          containerLimits.containers,
        );
        return { containers: items, truncated };
      }),

    'containers.action': (payload: AgentRequestPayload<'containers.action'>) =>
      guarded(`container ${payload.id}`, async (): Promise<AgentRequestResult<'containers.action'>> => {
        const id = checkRef(payload.id);
        const query = payload.action === 'start' ? '' : `?t=${stopGraceSeconds}`;
        const changed = await engine.post(
          `/containers/${encodeURIComponent(id)}/${payload.action}${query}`,
          (stopGraceSeconds + 30) * 1000,
        );
        const after = await inspect(engine, id);
        const state = isObject(after.State) ? text(after.State.Status, 32) : '';
        return {
          id: text(after.Id, 128) || id,
          name: text(after.Name, 256).replace(/^\//, ''),
          state: state || 'unknown',
          changed,
        };
      }),

    'containers.logs': (payload) =>
      guarded(`container ${payload.id}`, async () => {
        const id = checkRef(payload.id);
        const details = await inspect(engine, id);
        const tty = isObject(details.Config) && details.Config.Tty === true;
        const params = new URLSearchParams({
          stdout: '1',
          stderr: '1',
          tail: String(payload.tail),
          timestamps: payload.timestamps ? '1' : '0',
        });
        if (payload.since !== undefined) params.set('since', String(payload.since));
        // Room for the frame headers besides the text the answer may carry.
        const { body, cut } = await engine.getBytes(
          `/containers/${encodeURIComponent(id)}/logs?${params.toString()}`,
          containerLimits.logBytes * 2,
        );
        return { id, tty, ...logLines(body, tty, cut) };
      }),

    'containers.images': () =>
      guarded('images', async () => {
        const data = await engine.getJson('/images/json');
        const { items, truncated } = bounded(
          (Array.isArray(data) ? data : []).map(mapImage),
          containerLimits.images,
        );
        return { images: items, truncated };
      }),

    'containers.volumes': () =>
      guarded('volumes', async () => {
        const data = await engine.getJson('/volumes');
        const list = isObject(data) && Array.isArray(data.Volumes) ? data.Volumes : [];
        const { items, truncated } = bounded(list.map(mapVolume), containerLimits.volumes);
        return { volumes: items, truncated };
      }),
  };
}
