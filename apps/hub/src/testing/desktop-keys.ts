import type { TestHub } from '@svc/testkit';

/** What desktop sessions need: exec on the asset and reading it. */
const desktopScopes = ['assets:exec', 'assets:read'];

/**
 * Two operator keys that may open desktop sessions, both made by the hub's owner: each key is its own owner
 * (issue 28), so the other key's sessions and recordings are not theirs though one user made both.
 */
export async function createDesktopKeys(hub: TestHub): Promise<{ operatorKey: string; otherKey: string }> {
  const operatorKey = (await hub.createKey({ role: 'operator', scopes: desktopScopes })).raw_key;
  const otherKey = (await hub.createKey({ name: 'someone else', role: 'operator', scopes: desktopScopes }))
    .raw_key;
  return { operatorKey, otherKey };
}
