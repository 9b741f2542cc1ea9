/**
 * Bulk service control: one service action over many assets, each sent through the system service's own
 * service-action path (same checks, audit and events as `POST /assets/{id}/services/{name}/{action}`).
 * Authorization comes first for every target: one unknown or hidden target refuses the whole request, as
 * an exec fan-out does; an offline target or an agent's refusal is a per-target result.
 */
import type { BulkServiceAction, BulkServiceOutcome, BulkServiceResult } from '@svc/protocol';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { ActionContext } from '../../access/principal.js';
import type { AgentCaller } from '../../agents/agent-call.js';
import type { GroupService } from '../groups/groups.service.js';
import { checkServiceName, type SystemService } from '../system/system.service.js';
import { resolveTargetSet, targetSetOf } from '../../access/target-set.js';

export interface BulkService {
  serviceAction(ctx: ActionContext, input: BulkServiceAction): Promise<BulkServiceOutcome>;
}

export interface BulkServiceDeps {
  agents: Pick<AgentCaller, 'loadAsset' | 'assets'>;
  groups: Pick<GroupService, 'members'>;
  system: Pick<SystemService, 'serviceAction'>;
  /** Targets acted on at once. */
  concurrency?: number;
}

export function createBulkService(deps: BulkServiceDeps): BulkService {
  const { agents, groups, system } = deps;
  const concurrency = Math.max(1, deps.concurrency ?? 64);

  async function one(
    ctx: ActionContext,
    assetId: string,
    input: BulkServiceAction,
  ): Promise<BulkServiceResult> {
    try {
      const result = await system.serviceAction(ctx, assetId, input.service, input.action);
      return { asset_id: assetId, status: 'ok', active_state: result.active_state, error: null };
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      const status = error.code === 'asset_offline' ? 'offline' : 'error';
      return { asset_id: assetId, status, active_state: null, error: error.message };
    }
  }

  return {
    async serviceAction(ctx, input) {
      try {
        checkServiceName(input.service);
      } catch (error) {
        // The single route names its path parameter `name`; here the field is `service`.
        const problem =
          error instanceof HubError ? (error.details?.[0]?.problem ?? error.message) : 'invalid';
        throw validationError('service', problem);
      }
      const set = targetSetOf(input);
      const ids = await resolveTargetSet(agents.assets, groups, ctx.principal, set);
      if (ids.length === 0) throw validationError('group', 'the group has no members; nothing was run');
      // Every target authorized as a single service action is, before any is touched.
      for (const id of ids) {
        try {
          await agents.loadAsset(ctx.principal, id, 'services.action');
        } catch (error) {
          if (set.group !== null && error instanceof HubError && error.code === 'not_found') {
            throw new HubError(
              'not_found',
              `group ${set.group} has members outside this key's allowed assets`,
            );
          }
          throw error;
        }
      }
      const results = new Array<BulkServiceResult>(ids.length);
      let next = 0;
      const worker = async () => {
        while (next < ids.length) {
          const i = next;
          next += 1;
          results[i] = await one(ctx, ids[i] as string, input);
        }
      };
      await Promise.all(Array.from({ length: Math.min(ids.length, concurrency) }, worker));
      const summary = { total: ids.length, ok: 0, offline: 0, error: 0 };
      for (const r of results) summary[r.status] += 1;
      return { results, summary };
    },
  };
}
