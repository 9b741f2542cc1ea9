/**
 * System data and control of an asset through its agent: processes, services, network, disks, packages,
 * cron, users and logs. No shell anywhere (ARCHITECTURE.md security rule 5): service names and signals are
 * checked against closed vocabularies here and passed to the agent as data.
 */
import {
  signals,
  type AgentRequestPayload,
  type AgentRequestResult,
  type LogQuery,
  type ProcessKill,
} from '@svc/protocol';
import type { EventBus } from '../../platform/event-bus.js';
import { validationError } from '../../platform/hub-error.js';
import type { ActionContext } from '../../access/principal.js';
import type { AgentCaller } from '../../agents/agent-call.js';
import type { AuditService } from '../audit/audit.service.js';
import { requirePath } from '../../agents/agent-paths.js';

type ServiceAction = 'start' | 'stop' | 'restart';

type ReadType =
  | 'processes.list'
  | 'services.list'
  | 'system.network'
  | 'system.disks'
  | 'system.packages'
  | 'system.cron'
  | 'system.users';

export interface SystemService {
  read<T extends ReadType>(ctx: ActionContext, assetId: string, type: T): Promise<AgentRequestResult<T>>;
  kill(
    ctx: ActionContext,
    assetId: string,
    input: ProcessKill,
  ): Promise<AgentRequestResult<'processes.kill'>>;
  serviceAction(
    ctx: ActionContext,
    assetId: string,
    name: string,
    action: ServiceAction,
  ): Promise<AgentRequestResult<'services.action'>>;
  logs(ctx: ActionContext, assetId: string, query: LogQuery): Promise<AgentRequestResult<'system.logs'>>;
  /**
   * For the hub's own checks (the alert loop; no caller, nothing audited): each installed service's
   * `active_state` by unit name (`nginx.service`) as the asset's agent lists them, or null when the asset has
   * no service manager. Throws when the agent is
   * away or does not answer within `timeoutMs`.
   */
  serviceStates(assetId: string, timeoutMs: number): Promise<Map<string, string> | null>;
}

export interface SystemServiceDeps {
  audit: AuditService;
  agents: AgentCaller;
  events: EventBus;
}

/** Slow readers (a full package list, a journal query) get longer than the gateway's default. */
const readTimeoutMs: Partial<Record<ReadType, number>> = {
  'system.packages': 60_000,
  'system.users': 30_000,
};

const serviceNamePattern = /^[A-Za-z0-9@._:-]+$/;
const serviceEvents = {
  start: 'service.started',
  stop: 'service.stopped',
  restart: 'service.restarted',
} as const;

/**
 * A unit name the agent can pass as one argv item. The contract's pattern allows a leading '-', which
 * systemctl would read as an option (`--help`, `-H host`): refused here, as are '.' and '..'.
 */
export function checkServiceName(name: string): string {
  if (name.length === 0 || name.length > 256 || !serviceNamePattern.test(name)) {
    throw validationError('name', 'must be 1-256 characters of letters, digits and @ . _ : -');
  }
  if (name.startsWith('-')) throw validationError('name', "must not start with '-'");
  if (name === '.' || name === '..') throw validationError('name', 'is not a service name');
  return name;
}

/** Times the agent gets as arguments: parsed here and sent as ISO 8601, never as free text. */
function checkTime(field: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw validationError(field, 'must be an ISO 8601 date-time');
  return new Date(ms).toISOString();
}

export function checkLogQuery(query: LogQuery): LogQuery {
  const out: LogQuery = {};
  const source = query.source ?? (query.path !== undefined ? 'file' : undefined);
  if (source !== undefined) out.source = source;
  if (source === 'file' && query.path === undefined)
    throw validationError('path', 'is required with source=file');
  if (source === 'journal' && query.path !== undefined)
    throw validationError('path', 'is only for source=file');
  if (query.path !== undefined) out.path = requirePath('path', query.path);
  if (query.unit !== undefined) {
    if (source === 'file') throw validationError('unit', 'is only for source=journal');
    out.unit = checkServiceName(query.unit);
  }
  const since = checkTime('since', query.since);
  const until = checkTime('until', query.until);
  if (since !== undefined && until !== undefined && since > until)
    throw validationError('until', 'must not be before since');
  if (since !== undefined) out.since = since;
  if (until !== undefined) out.until = until;
  if (query.grep !== undefined) out.grep = query.grep;
  if (query.priority !== undefined) out.priority = query.priority;
  if (query.limit !== undefined) out.limit = query.limit;
  return out;
}

export function createSystemService(deps: SystemServiceDeps): SystemService {
  const { audit, agents, events } = deps;

  return {
    async read<T extends ReadType>(ctx: ActionContext, assetId: string, type: T) {
      const row = await agents.loadAsset(ctx.principal, assetId, type);
      const timeoutMs = readTimeoutMs[type];
      // Every read request carries the empty payload; TypeScript cannot see that through the generic.
      const payload = {} as AgentRequestPayload<T>;
      return agents.call(row, type, payload, timeoutMs ? { timeoutMs } : {});
    },

    async kill(ctx, assetId, input) {
      const signal = input.signal ?? 'SIGTERM';
      if (!(signals as readonly string[]).includes(signal))
        throw validationError('signal', `must be one of ${signals.join(', ')}`);
      const row = await agents.loadAsset(ctx.principal, assetId, 'processes.kill');
      agents.requireOnline(row);
      await audit.recordIntent(ctx, [
        {
          action: 'process.kill',
          targetType: 'process',
          targetId: String(input.pid),
          assetId: row.id,
          detail: { pid: input.pid, signal },
        },
      ]);
      return agents.call(row, 'processes.kill', { pid: input.pid, signal });
    },

    async serviceAction(ctx, assetId, name, action) {
      checkServiceName(name);
      const row = await agents.loadAsset(ctx.principal, assetId, 'services.action');
      agents.requireOnline(row);
      await audit.recordIntent(ctx, [
        {
          action: `service.${action}`,
          targetType: 'service',
          targetId: name,
          assetId: row.id,
          detail: { name, action },
        },
      ]);
      const result = await agents.call(row, 'services.action', { name, action }, { timeoutMs: 120_000 });
      events.publish(serviceEvents[action], {
        asset_ids: [row.id],
        asset_id: row.id,
        name,
        active_state: result.active_state,
      });
      return result;
    },

    async serviceStates(assetId, timeoutMs) {
      const listed = await agents.gateway.request(assetId, 'services.list', {}, { timeoutMs });
      if (listed.manager === 'none') return null;
      // A `not-found` unit is only referenced, not installed: not a service the asset has.
      const installed = listed.services.filter((s) => s.load_state !== 'not-found');
      return new Map(installed.map((s) => [s.name, s.active_state]));
    },

    async logs(ctx, assetId, query) {
      const checked = checkLogQuery(query);
      const row = await agents.loadAsset(ctx.principal, assetId, 'system.logs');
      return agents.call(row, 'system.logs', checked, { timeoutMs: 60_000 });
    },
  };
}
