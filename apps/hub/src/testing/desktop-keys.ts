import type { TestHub } from '@svc/testkit';
import { systemOwnerContext } from '../access/principal.js';

/** What desktop sessions need: exec on the asset and reading it. */
const desktopScopes = ['assets:exec', 'assets:read'];

/**
 * Two operator keys that may open desktop sessions: one of the owner's, and one made by no user, so a different
 * person from the owner's keys (whose sessions and recordings are not theirs).
 */
export async function createDesktopKeys(hub: TestHub): Promise<{ operatorKey: string; otherKey: string }> {
  const operatorKey = (await hub.createKey({ role: 'operator', scopes: desktopScopes })).raw_key;
  const otherKey = (
    await hub.hub.services.apiKeys.create(systemOwnerContext(), {
      name: 'someone else',
      role: 'operator',
      scopes: desktopScopes,
    })
  ).raw_key;
  return { operatorKey, otherKey };
}
