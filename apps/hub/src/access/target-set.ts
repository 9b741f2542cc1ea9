/**
 * What saved actions and schedules run on: explicit `targets` or a `group`, exactly one. Checked when they are
 * created (every target visible to the creator, or the 404 exec answers), and again by the exec service each
 * time they run.
 */
import { HubError, validationError } from '../platform/hub-error.js';
import { canSeeAsset, type Principal } from './principal.js';
import type { AssetReads } from '../agents/asset-reads.js';

/** What a target set needs of groups: the members of one the principal may see (404 otherwise). */
export interface GroupMembers {
  members(principal: Principal, id: string): Promise<string[]>;
}

export type TargetSet = { targets: string[]; group: null } | { targets: null; group: string };

/** Exactly one of `targets` and `group`; `fallback` when both are absent (a schedule of a saved action). */
export function targetSetOf(
  input: { targets?: readonly string[] | undefined; group?: string | undefined },
  fallback?: TargetSet,
): TargetSet {
  if (input.targets !== undefined && input.group !== undefined) {
    throw validationError('targets', 'give targets or group, not both');
  }
  if (input.targets !== undefined) {
    if (input.targets.length === 0) throw validationError('targets', 'must name at least one asset');
    return { targets: [...input.targets], group: null };
  }
  if (input.group !== undefined) return { targets: null, group: input.group };
  if (fallback) return fallback;
  throw validationError('targets', 'give targets (asset ids) or group (a group id)');
}

/** The assets a target set means now, checked for the principal: 404 for anything it may not see. */
export async function resolveTargetSet(
  assets: Pick<AssetReads, 'summaries'>,
  groups: GroupMembers,
  principal: Principal,
  set: TargetSet,
): Promise<string[]> {
  if (set.group !== null) {
    const members = await groups.members(principal, set.group);
    if (members.some((id) => !canSeeAsset(principal, id))) {
      throw new HubError('not_found', `group ${set.group} has members outside this key's allowed assets`);
    }
    return members;
  }
  const visible = set.targets.filter((id) => canSeeAsset(principal, id));
  const found = new Set((await assets.summaries(visible)).map((r) => r.id));
  const unknown = set.targets.filter((id) => !found.has(id));
  if (unknown.length > 0) {
    const more = unknown.length > 20 ? ` and ${unknown.length - 20} more` : '';
    throw new HubError('not_found', `unknown targets: ${unknown.slice(0, 20).join(', ')}${more}`);
  }
  return set.targets;
}

/** Whether a restricted principal may see a record aimed at `set` (every explicit target visible). */
export function targetSetVisible(principal: Principal, set: TargetSet): boolean {
  if (principal.allowedAssets === null) return true;
  // A group's members change after the fact: a restricted key sees group records only through runs (404).
  if (set.group !== null) return false;
  return set.targets.every((id) => canSeeAsset(principal, id));
}

/** The stored form: targets as JSON text, or the group id. */
export function storedTargets(set: TargetSet): { targets: string | null; group_id: string | null } {
  return { targets: set.targets ? JSON.stringify(set.targets) : null, group_id: set.group };
}

export function loadedTargets(row: { targets: string | null; group_id: string | null }): TargetSet {
  if (row.group_id !== null) return { targets: null, group: row.group_id };
  const parsed: unknown = JSON.parse(row.targets ?? '[]');
  const ids = Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
  return { targets: ids, group: null };
}
