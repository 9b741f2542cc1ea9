import { isAdminRole, scopesCover, type Role, type Scope } from '@svc/protocol';

/** Who is calling, as authentication resolved it. Services take this to scope what they return. */
export interface Principal {
  authType: 'api_key' | 'session';
  userId: string | null;
  role: Role;
  /** API key scopes; null for sessions, whose role alone decides. */
  scopes: readonly string[] | null;
  key: { id: string; name: string; expiresAt: string | null } | null;
  /** Assets this principal may touch; null means every asset. */
  allowedAssets: ReadonlySet<string> | null;
  /** A console session, by id (absent for keys). */
  sessionId?: string;
  /** When that session expires (absent for keys). */
  sessionExpiresAt?: string;
  /** A session whose user must choose a new password before anything else (the owner's first sign-in). */
  mustChangePassword?: boolean;
}

export function canSeeAsset(principal: Principal, assetId: string): boolean {
  return principal.allowedAssets === null || principal.allowedAssets.has(assetId);
}

export function isRestricted(principal: Principal): boolean {
  return principal.allowedAssets !== null;
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes === null || scopesCover(principal.scopes, scope);
}

export function isAdmin(principal: Principal): boolean {
  return isAdminRole(principal.role);
}

/** The actor columns of an audit event. */
export function actorOf(principal: Principal): { actorType: 'api_key' | 'session'; actorId: string | null } {
  return principal.authType === 'api_key'
    ? { actorType: 'api_key', actorId: principal.key?.id ?? null }
    : { actorType: 'session', actorId: principal.userId };
}

/** The asset id inside a route parameter: itself, or the part before the first ':' of a compound id. */
export function assetIdOf(value: string, form: 'asset' | 'compound'): string {
  if (form === 'asset') return value;
  const colon = value.indexOf(':');
  return colon === -1 ? value : value.slice(0, colon);
}

/** What a service needs to know about the request it serves, without knowing HTTP. */
export interface ActionContext {
  principal: Principal;
  requestId: string | null;
  ip: string | null;
  /**
   * The request's Origin header, when it sent one. For a cookie-authenticated mutation the origin check has
   * already required it to be the hub's own origin (WebAuthn checks its ceremonies against it).
   */
  origin?: string | null;
  /** The surface that made the request when it was not the API itself: `mcp` for a tool of the MCP server. */
  via?: CallSurface;
}

/** Surfaces that call the API's routes on a caller's behalf, marked in the audit trail (decision 0073). */
export type CallSurface = 'mcp';

/**
 * The hub acting on its own behalf, not for a caller: an owner with every scope and every asset. Used where
 * the hub drives its own services directly (enrolling the local agent, provisioning a simulated fleet).
 */
export function systemOwnerContext(ip: string | null = '127.0.0.1'): ActionContext {
  return {
    principal: {
      authType: 'api_key',
      userId: null,
      role: 'owner',
      scopes: ['*'],
      key: null,
      allowedAssets: null,
    },
    requestId: null,
    ip,
  };
}
