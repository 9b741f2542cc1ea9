/**
 * Contracts the interface fixes whose areas are not built yet. They are registered, guarded like every other
 * route, and answer 501 `not_implemented` naming the issue that builds them. That issue moves them into
 * `api/<area>.ts` beside their schemas, named after the hub module that handles them (keeping `operationId`
 * where a name changes).
 */
import type { RouteContract } from '../contract.js';

/** A contract whose behaviour a later issue builds. */
export type PlannedContract = RouteContract & { plannedIn: string };

/**
 * Every route of the interface is built now. A later issue that fixes a contract before building it lists it
 * here (`plannedIn` naming the issue) and the hub answers it 501 after the guard until then.
 */
export const plannedContracts = {} satisfies Record<string, PlannedContract>;
