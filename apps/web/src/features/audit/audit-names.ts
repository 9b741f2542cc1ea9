/**
 * Names for the ids an audit event carries: who acted (a user, an API key) and what it acted on (an asset, a
 * group, a key, a user), each with the page it links to. A few calls per list, never one per event: the users
 * and keys are admin lists (read only when the viewer is an admin), the groups one list, the assets one
 * `ids=` call for the assets named. An id that resolves to nothing (gone, or not the viewer's to see) has no
 * name: the caller shows the raw id.
 */
import { useQuery } from '@tanstack/react-query';
import type { AuditEvent } from '@svc/protocol';
import { hub } from '../../api/client';

export interface NamedRef {
  name: string;
  /** The page of the thing named; null when it has none the viewer may open. */
  to: string | null;
}

export interface AuditNames {
  actor(event: AuditEvent): NamedRef | null;
  target(event: AuditEvent): NamedRef | null;
}

const listSize = 500;
const staleTime = 60_000;

/** The users' names (admin only); the audit page reads the same list. */
export function useUserNames(enabled: boolean): Map<string, string> {
  const users = useQuery({
    queryKey: ['users', 'list', 'names'],
    queryFn: async () => (await hub.call('users.list', { query: { per_page: listSize } })).data,
    staleTime,
    enabled,
  });
  return new Map((users.data ?? []).map((u) => [u.id, u.username]));
}

function targetIds(events: readonly AuditEvent[], type: string): string[] {
  const ids = new Set<string>();
  for (const e of events) if (e.target_type === type && e.target_id) ids.add(e.target_id);
  return [...ids].sort();
}

export function useAuditNames(events: readonly AuditEvent[], isAdmin: boolean): AuditNames {
  const userNames = useUserNames(isAdmin);
  const keys = useQuery({
    queryKey: ['keys', 'list', 'names'],
    queryFn: async () => (await hub.call('keys.list', { query: { per_page: listSize } })).data,
    staleTime,
    enabled: isAdmin,
  });
  const keyNames = new Map((keys.data ?? []).map((k) => [k.id, k.name]));
  const wantsGroups = events.some((e) => e.target_type === 'group' && e.target_id);
  const groups = useQuery({
    queryKey: ['groups', 'list', 'names'],
    queryFn: async () => (await hub.call('groups.list', { query: { per_page: listSize } })).data,
    staleTime,
    enabled: wantsGroups,
  });
  const groupNames = new Map((groups.data ?? []).map((g) => [g.id, g.name]));
  const assetIds = targetIds(events, 'asset');
  const assets = useQuery({
    queryKey: ['assets', 'names', assetIds],
    queryFn: async () =>
      (await hub.call('assets.list', { query: { ids: assetIds.join(','), per_page: assetIds.length } })).data,
    staleTime,
    enabled: assetIds.length > 0,
  });
  const assetNames = new Map((assets.data ?? []).map((a) => [a.id, a.name]));

  const named =
    (names: Map<string, string>, page: (id: string) => string) =>
    (id: string): NamedRef | null => {
      const name = names.get(id);
      return name === undefined ? null : { name, to: page(id) };
    };
  const user = named(userNames, () => '/admin/users');
  const key = named(keyNames, () => '/admin/keys');
  const targets = new Map([
    ['asset', named(assetNames, (id) => `/assets/${encodeURIComponent(id)}`)],
    ['group', named(groupNames, (id) => `/groups/${encodeURIComponent(id)}`)],
    ['api_key', key],
    ['user', user],
  ]);
  return {
    actor(event) {
      if (!event.actor_id) return null;
      if (event.actor_type === 'session') return user(event.actor_id);
      if (event.actor_type === 'api_key') return key(event.actor_id);
      return null;
    },
    target(event) {
      if (!event.target_id || !event.target_type) return null;
      return targets.get(event.target_type)?.(event.target_id) ?? null;
    },
  };
}
