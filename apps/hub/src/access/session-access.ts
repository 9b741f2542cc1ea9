/**
 * Who may use a remote session or its recording: the one rule (issue 16, spec 5.5.1), for terminals
 * (modules/sessions) and desktops (modules/desktop) alike. An interactive-capable caller (not a viewer, holding
 * `assets:exec`, able to see the asset) may attach to, close or read what it owns; an admin may do so for
 * everyone's. The owner is the console user for a console session, and the API key itself for a key (never
 * the user who made the key: two keys of one admin are two owners, and neither reaches the other's nor that
 * admin's console sessions unless it is an admin key itself; issue 28).
 */
import { actorOf, canSeeAsset, hasScope, isAdmin, type Principal } from './principal.js';

/** Who owns a session or recording: `session` (owner_id is a user id) or `api_key` (owner_id is a key id). */
export interface Owner {
  owner_type: 'session' | 'api_key';
  owner_id: string;
}

/** Who owned things as a user: their console sessions, and each of their API keys. */
export function ownersOfUser(userId: string, keyIds: readonly string[]): Owner[] {
  return [
    { owner_type: 'session', owner_id: userId },
    ...keyIds.map((id): Owner => ({ owner_type: 'api_key', owner_id: id })),
  ];
}

/** What a session or recording says about its owner. */
export interface Owned {
  asset_id: string;
  owner_type: string;
  owner_id: string;
}

/** The owner a new session or recording gets: the console user, or the API key. */
export function ownerOf(principal: Principal): Owner | null {
  const actor = actorOf(principal);
  return actor.actorId === null ? null : { owner_type: actor.actorType, owner_id: actor.actorId };
}

/** Whether two owners are the same one (the type counts: a user id and a key id never name one owner). */
export function sameOwner(
  a: Pick<Owned, 'owner_type' | 'owner_id'>,
  b: Pick<Owned, 'owner_type' | 'owner_id'>,
) {
  return a.owner_type === b.owner_type && a.owner_id === b.owner_id;
}

export function mayUseSession(principal: Principal, owned: Owned): boolean {
  return whyMayNotUseSession(principal, owned) === null;
}

/** Whether `principal` is what owns `owned` (whatever it may do now). */
export function isSessionOwner(principal: Principal, owned: Owned): boolean {
  const owner = ownerOf(principal);
  return owner !== null && sameOwner(owner, owned);
}

/** The one rule, saying why not: for a connection closed because its caller changed (decision 0049). */
export function whyMayNotUseSession(principal: Principal, owned: Owned): string | null {
  if (principal.role === 'viewer') return 'the viewer role cannot use sessions';
  if (!hasScope(principal, 'assets:exec')) return 'the key no longer holds the scope "assets:exec"';
  if (!canSeeAsset(principal, owned.asset_id)) return `the key may no longer use asset ${owned.asset_id}`;
  if (isAdmin(principal) || isSessionOwner(principal, owned)) return null;
  return 'only its owner or an admin may use the session';
}
