/**
 * The hub's modules, built in the order they are composed, started and (in reverse) closed: each group
 * (hub/account-modules.ts, operation-modules.ts, outward-modules.ts) returns its modules in that order, each
 * built from the platform parts and what the modules before it provide. A new area is one entry in the list of
 * the group it belongs to.
 */
import { createAccountModules } from './account-modules.js';
import type { ModuleParts } from './module-parts.js';
import { createOperationModules } from './operation-modules.js';
import { createOutwardModules } from './outward-modules.js';

export type { ModuleParts } from './module-parts.js';

/** Every module, by name, in the order of composition. */
export function createModules(parts: ModuleParts) {
  const accounts = createAccountModules(parts, {
    // Deleting a user asks the schedules module, built later with the operation modules, which run as them.
    schedules: () => operations.schedules.services.schedules,
    // ...and the modules keeping data of users (passkeys, push, snippets, bookmarks, saved filters), built with the outward ones.
    userData: () => [
      outward.mobile.services.mobile,
      outward.notifications.services.push,
      outward.snippets.services.snippets,
      outward.bookmarks.services.bookmarks,
      outward.filters.services.filters,
    ],
  });
  const operations = createOperationModules(parts, accounts, {
    // Alert rules of kind `check` read the checks module, built later with the outward modules.
    checkStates: (assetIds) => outward.checks.services.checks.statesOf(assetIds),
  });
  const outward = createOutwardModules(parts, accounts, operations);
  return { ...accounts, ...operations, ...outward };
}

export type HubModules = ReturnType<typeof createModules>;
