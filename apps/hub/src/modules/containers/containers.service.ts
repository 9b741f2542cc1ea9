/**
 * Containers through the agent: every call resolves its asset first (the part before ':' of a container or
 * stack id), so `allowed_assets` and `asset_offline` apply as on every other agent operation. Actions are
 * audited before the agent acts and published as `container.*` events after it did
 * (docs/decisions/0020-containers.md).
 */
import {
  containerRefPattern,
  type AgentRequestResult,
  type Container,
  type ContainerActionResult,
  type ContainerHost,
  type ContainerImage,
  type ContainerLogs,
  type ContainerLogsQuery,
  type ContainerStack,
  type ContainerVolume,
  type EngineContainer,
} from '@svc/protocol';
import type { ActionContext, Principal } from '../../access/principal.js';
import { canSeeAsset } from '../../access/principal.js';
import type { AgentCaller } from '../../agents/agent-call.js';
import type { AgentGateway } from '../../agents/agent-gateway.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { AuditService } from '../audit/audit.service.js';

type ContainerAction = 'start' | 'stop' | 'restart';

export interface ContainersService {
  hosts(principal: Principal, page: PageRequest): Promise<Page<ContainerHost>>;
  list(ctx: ActionContext, assetId: string, page: PageRequest): Promise<Page<Container>>;
  action(ctx: ActionContext, containerId: string, action: ContainerAction): Promise<ContainerActionResult>;
  logs(ctx: ActionContext, containerId: string, query: ContainerLogsQuery): Promise<ContainerLogs>;
  stack(ctx: ActionContext, stackId: string): Promise<ContainerStack>;
  stacks(ctx: ActionContext, assetId: string, page: PageRequest): Promise<Page<ContainerStack>>;
  images(ctx: ActionContext, assetId: string, page: PageRequest): Promise<Page<ContainerImage>>;
  volumes(ctx: ActionContext, assetId: string, page: PageRequest): Promise<Page<ContainerVolume>>;
  /**
   * The containers of every online container host the principal may see, for the dependency graph: hosts
   * asked a few at a time with a short timeout (one that does not answer contributes none), answers cached.
   */
  inventory(principal: Principal): Promise<HostContainers[]>;
}

interface HostContainers {
  asset_id: string;
  containers: Container[];
}

export interface ContainersServiceDeps {
  audit: AuditService;
  agents: AgentCaller;
  events: EventBus;
  gateway?: Pick<AgentGateway, 'sessions'>;
  /** How long the inventory waits for one host (default 3 s). */
  inventoryTimeoutMs?: number;
  /** Milliseconds since the epoch, for the inventory's cache (default Date.now). */
  now?: () => number;
}

const refPattern = new RegExp(containerRefPattern);
const containerEvents = {
  start: 'container.started',
  stop: 'container.stopped',
  restart: 'container.restarted',
} as const;
/** The engine waits 10 s for a stop before it kills; the agent's answer may take that and more. */
const actionTimeoutMs = 90_000;
/** The inventory asks this many hosts at once and keeps an answer (or a silence) this long. */
const inventoryConcurrency = 8;
const inventoryTtlMs = 15_000;

/** `<asset id>:<engine id>` into its parts; the engine part checked strictly (hex or name characters, bounded). */
export function splitCompoundId(value: string): { assetId: string; ref: string } {
  const colon = value.indexOf(':');
  const assetId = colon === -1 ? value : value.slice(0, colon);
  const ref = colon === -1 ? '' : value.slice(colon + 1);
  if (!refPattern.test(ref)) {
    throw validationError(
      'id',
      'must be <asset id>:<engine id> with 1-128 letters, digits, _ . - after the colon',
    );
  }
  return { assetId, ref };
}

function present(assetId: string, c: EngineContainer): Container {
  return {
    id: `${assetId}:${c.id}`,
    asset_id: assetId,
    engine_id: c.id,
    name: c.name,
    image: c.image,
    state: c.state,
    status: c.status,
    health: c.health,
    created_at: c.created_at,
    ports: c.ports,
    stack_id: c.compose_project ? `${assetId}:${c.compose_project}` : null,
    compose_project: c.compose_project,
    compose_service: c.compose_service,
  };
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function paged<T>(items: T[], page: PageRequest): Page<T> {
  const { limit, offset } = pageWindow(page);
  return toPage(items.slice(offset, offset + limit), items.length, page);
}

/** Compose stacks of one host: containers grouped by their project label, sorted by project. */
function groupStacks(assetId: string, containers: Container[]): ContainerStack[] {
  const projects = new Map<string, Container[]>();
  for (const c of containers) {
    if (!c.compose_project) continue;
    const list = projects.get(c.compose_project) ?? [];
    list.push(c);
    projects.set(c.compose_project, list);
  }
  return [...projects.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([project, members]) => ({
      id: `${assetId}:${project}`,
      asset_id: assetId,
      project,
      running: members.filter((m) => m.state === 'running').length,
      total: members.length,
      services: [...new Set(members.map((m) => m.compose_service).filter((s): s is string => !!s))].sort(),
      containers: members.sort(byName),
    }));
}

/** `work` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** `promise`, or `fallback` once `ms` passed. */
function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => {
      resolve(fallback);
    }, ms);
  });
  return Promise.race([promise.catch(() => fallback), late]).finally(() => {
    clearTimeout(timer);
  });
}

export function createContainersService(deps: ContainersServiceDeps): ContainersService {
  const { audit, agents, events } = deps;
  const gateway = deps.gateway ?? agents.gateway;
  const now = deps.now ?? Date.now;
  const inventoryTimeoutMs = deps.inventoryTimeoutMs ?? 3_000;
  /** Per asset, whoever asks: the principal's right to see the asset is checked before the cache is read. */
  const inventoryCache = new Map<string, { at: number; containers: Promise<Container[]> }>();

  async function containersOf(ctx: ActionContext, assetId: string): Promise<Container[]> {
    const row = await agents.loadAsset(ctx.principal, assetId, 'containers.list');
    const result: AgentRequestResult<'containers.list'> = await agents.call(row, 'containers.list', {});
    return result.containers.map((c) => present(row.id, c)).sort(byName);
  }

  return {
    async hosts(principal, page) {
      const sessions = gateway
        .sessions()
        .filter((s) => s.hello.capabilities.includes('containers') && canSeeAsset(principal, s.assetId));
      const names = await agents.assets.names(sessions.map((s) => s.assetId));
      const hosts: ContainerHost[] = sessions
        .filter((s) => names.has(s.assetId))
        .map((s) => ({
          asset_id: s.assetId,
          name: names.get(s.assetId) ?? '',
          hostname: s.hello.hostname || null,
          platform: s.hello.platform,
          agent_version: s.hello.agent_version || null,
          connected_at: s.connectedAt.toISOString(),
        }))
        .sort((a, b) => byName(a, b) || (a.asset_id < b.asset_id ? -1 : 1));
      return paged(hosts, page);
    },

    async inventory(principal) {
      const at = now();
      for (const [assetId, entry] of inventoryCache) {
        if (at - entry.at >= inventoryTtlMs) inventoryCache.delete(assetId);
      }
      const hostIds = gateway
        .sessions()
        .filter((s) => s.hello.capabilities.includes('containers') && canSeeAsset(principal, s.assetId))
        .map((s) => s.assetId);
      const found = new Map<string, Container[]>();
      await eachLimited(hostIds, inventoryConcurrency, async (assetId) => {
        const row = await agents.loadAsset(principal, assetId, 'containers.list').catch(() => null);
        if (!row) return;
        let entry = inventoryCache.get(assetId);
        if (!entry) {
          const asked = agents
            .call(row, 'containers.list', {}, { timeoutMs: inventoryTimeoutMs })
            .then((result) => result.containers.map((c) => present(assetId, c)).sort(byName));
          entry = { at, containers: within(asked, inventoryTimeoutMs, []) };
          inventoryCache.set(assetId, entry);
        }
        found.set(assetId, await entry.containers);
      });
      return hostIds
        .filter((id) => found.has(id))
        .sort()
        .map((id) => ({ asset_id: id, containers: found.get(id) ?? [] }));
    },

    async list(ctx, assetId, page) {
      return paged(await containersOf(ctx, assetId), page);
    },

    async action(ctx, containerId, action) {
      const { assetId, ref } = splitCompoundId(containerId);
      const row = await agents.loadAsset(ctx.principal, assetId, 'containers.action');
      agents.requireOnline(row);
      await audit.recordIntent(ctx, [
        {
          action: `container.${action}`,
          targetType: 'container',
          targetId: `${row.id}:${ref}`,
          assetId: row.id,
          detail: { container: ref, action },
        },
      ]);
      const result = await agents.call(
        row,
        'containers.action',
        { id: ref, action },
        { timeoutMs: actionTimeoutMs },
      );
      const id = `${row.id}:${result.id}`;
      events.publish(containerEvents[action], {
        asset_ids: [row.id],
        asset_id: row.id,
        container_id: id,
        name: result.name,
      });
      return { id, action, state: result.state, changed: result.changed };
    },

    async logs(ctx, containerId, query) {
      const { assetId, ref } = splitCompoundId(containerId);
      let since: number | undefined;
      if (query.since !== undefined) {
        const ms = Date.parse(query.since);
        if (Number.isNaN(ms)) throw validationError('since', 'must be an ISO 8601 date-time');
        since = Math.max(0, Math.floor(ms / 1000));
      }
      const row = await agents.loadAsset(ctx.principal, assetId, 'containers.logs');
      const result = await agents.call(
        row,
        'containers.logs',
        {
          id: ref,
          tail: query.tail ?? 200,
          timestamps: query.timestamps ?? false,
          ...(since !== undefined ? { since } : {}),
        },
        { timeoutMs: 60_000 },
      );
      return { ...result, id: `${row.id}:${ref}` };
    },

    async stack(ctx, stackId) {
      const { assetId, ref } = splitCompoundId(stackId);
      const stack = groupStacks(assetId, await containersOf(ctx, assetId)).find((s) => s.project === ref);
      if (!stack) throw new HubError('not_found', `no compose stack ${stackId}`);
      return stack;
    },

    async stacks(ctx, assetId, page) {
      return paged(groupStacks(assetId, await containersOf(ctx, assetId)), page);
    },

    async images(ctx, assetId, page) {
      const row = await agents.loadAsset(ctx.principal, assetId, 'containers.images');
      const result = await agents.call(row, 'containers.images', {});
      const images = result.images
        .map((i) => ({ asset_id: row.id, ...i }))
        .sort((a, b) => {
          const ta = a.tags[0] ?? `~${a.id}`;
          const tb = b.tags[0] ?? `~${b.id}`;
          return ta < tb ? -1 : ta > tb ? 1 : 0;
        });
      return paged(images, page);
    },

    async volumes(ctx, assetId, page) {
      const row = await agents.loadAsset(ctx.principal, assetId, 'containers.volumes');
      const result = await agents.call(row, 'containers.volumes', {});
      return paged(result.volumes.map((v) => ({ asset_id: row.id, ...v })).sort(byName), page);
    },
  };
}
