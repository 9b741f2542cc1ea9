/**
 * Who may use a remote session or its recording: the one rule (issue 16, spec 5.5.1). An interactive-capable
 * caller (not a viewer, holding `assets:exec`, able to see the asset) may attach to, close or read what it
 * owns; an admin may do so for everyone's.
 */
import { actorOf, canSeeAsset, hasScope, isAdmin, type Principal } from '../../access/principal.js';

/** What a session or recording says about its owner. */
export interface Owned {
  asset_id: string;
  owner_type: string;
  owner_id: string;
}

/** The owner a new session or recording gets: the console user, or the API key. */
export function ownerOf(
  principal: Principal,
): { owner_type: 'session' | 'api_key'; owner_id: string } | null {
  const actor = actorOf(principal);
  return actor.actorId === null ? null : { owner_type: actor.actorType, owner_id: actor.actorId };
}

export function mayUseSession(principal: Principal, owned: Owned): boolean {
  return whyMayNotUseSession(principal, owned) === null;
}

/** Whether `principal` is what owns `owned` (whatever it may do now). */
export function isSessionOwner(principal: Principal, owned: Owned): boolean {
  const owner = ownerOf(principal);
  return owner !== null && owner.owner_type === owned.owner_type && owner.owner_id === owned.owner_id;
}

/** The one rule, saying why not: for a connection closed because its caller changed (decision 0049). */
export function whyMayNotUseSession(principal: Principal, owned: Owned): string | null {
  if (principal.role === 'viewer') return 'the viewer role cannot use sessions';
  if (!hasScope(principal, 'assets:exec')) return 'the key no longer holds the scope "assets:exec"';
  if (!canSeeAsset(principal, owned.asset_id)) return `the key may no longer use asset ${owned.asset_id}`;
  if (isAdmin(principal) || isSessionOwner(principal, owned)) return null;
  return 'only its owner or an admin may use the session';
}
