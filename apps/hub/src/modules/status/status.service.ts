import type { AggregateStatus } from '@svc/protocol';
import type { Clock } from '../../platform/clock.js';
import { sha256Hex } from '../../platform/crypto.js';
import type { Principal } from '../../access/principal.js';
import type { AssetService } from '../assets/assets.service.js';
import type { GroupService } from '../groups/groups.service.js';

const aggregateCacheMs = 5_000;

/**
 * The cache key is the caller's view of the fleet: the owner sees everything; anyone else sees what their
 * allowed assets let them see. Two callers share an entry only when their views are the same.
 */
function aggregateCacheKey(principal: Principal): string {
  if (principal.role === 'owner' || principal.allowedAssets === null) return 'view:all';
  return `view:assets:${sha256Hex([...principal.allowedAssets].sort().join(','))}`;
}

export function createStatusAggregateService(deps: {
  clock: Clock;
  assets: Pick<AssetService, 'countByStatus'>;
  groups: Pick<GroupService, 'count'>;
}) {
  const { clock, assets, groups } = deps;
  const cache = new Map<string, { value: AggregateStatus; expiresAt: number }>();

  async function compute(principal: Principal): Promise<AggregateStatus> {
    const visible =
      principal.role === 'owner' || principal.allowedAssets === null ? null : [...principal.allowedAssets];
    const [{ online, offline, unknown }, groupCount] = await Promise.all([
      assets.countByStatus(visible),
      groups.count(visible),
    ]);
    return {
      scope: visible === null ? 'all' : 'restricted',
      assets: { total: online + offline + unknown, online, offline, unknown },
      groups: groupCount,
      generated_at: clock.now().toISOString(),
    };
  }

  return {
    async aggregate(principal: Principal): Promise<AggregateStatus> {
      const key = aggregateCacheKey(principal);
      const now = clock.now().getTime();
      const hit = cache.get(key);
      if (hit && hit.expiresAt > now) return hit.value;
      const value = await compute(principal);
      if (cache.size > 1000) cache.clear();
      cache.set(key, { value, expiresAt: now + aggregateCacheMs });
      return value;
    },
    /** Drops every cached view: a change the event bus announced shows at the next request, not 5 s later. */
    forget(): void {
      cache.clear();
    },
  };
}

export type StatusAggregateService = ReturnType<typeof createStatusAggregateService>;
