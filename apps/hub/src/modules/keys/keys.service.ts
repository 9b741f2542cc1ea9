import { allKeys, type CacheInvalidation } from '../../platform/cluster/invalidation.js';
import { randomBytes } from 'node:crypto';
import {
  formatApiKey,
  isGrantableScope,
  newId,
  parseApiKey,
  roleRank,
  roles,
  scopeFamilies,
  scopesCover,
  scopes as allScopes,
  type ApiKey,
  type ApiKeyCreate,
  type ApiKeyCreated,
  type ApiKeyUpdate,
  type OwnerTokenCreated,
  type Role,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import { constantTimeEqual, sha256Hex } from '../../platform/crypto.js';
import type { Database, Executor } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import { pageWindow, readStringList, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { ActionContext, Principal } from '../../access/principal.js';
import type { AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import {
  deleteApiKey,
  findApiKey,
  findApiKeyByHash,
  findApiKeyWithUserRole,
  insertApiKey,
  listApiKeyIdsByRole,
  listApiKeysOfUser,
  listApiKeys,
  updateApiKey,
  type ApiKeyRow,
} from './keys.repository.js';
import { presentApiKey } from './keys.presenter.js';

const lastUsedResolutionMs = 60_000;
/**
 * A verified key's principal is reused for this long without reading the database again. Updates and revocations
 * made through this hub process clear the cache when they commit, so here they take effect at once, and tell the
 * other hub processes to clear theirs (decision 0040); the window only bounds how long another process could
 * still accept a key revoked elsewhere when that message is lost.
 */
const verifiedKeyTtlMs = 5_000;
/** The invalidation topic of verified keys (a key id, or `*`). */
const keyCacheTopic = 'api_keys';
const maxVerifiedKeys = 10_000;

export interface ApiKeyService {
  create(ctx: ActionContext, input: ApiKeyCreate): Promise<ApiKeyCreated>;
  list(page: PageRequest): Promise<Page<ApiKey>>;
  get(id: string): Promise<ApiKey>;
  update(ctx: ActionContext, id: string, input: ApiKeyUpdate): Promise<ApiKey>;
  revoke(ctx: ActionContext, id: string): Promise<ApiKey>;
  /** Resolves key text to a principal; null for anything not a live key. Never throws on bad text. */
  authenticate(text: string): Promise<Principal | null>;
  /**
   * A key's principal as the database has it now (never the cache), null when it is gone or expired: what a
   * connection the key holds open is checked again with after the key changed (decision 0049).
   */
  principalOfKey(id: string): Promise<Principal | null>;
  /** When a key that still exists expires (null: never); undefined once it was revoked. */
  expiryOf(id: string): Promise<{ expiresAt: string | null } | undefined>;
  /**
   * A new owner token (no other API can make an `owner` key), shown once; every earlier owner token is revoked
   * in the same transaction. Only the owner, signed in, may ask.
   */
  rotateOwnerToken(ctx: ActionContext): Promise<OwnerTokenCreated>;
  /**
   * Deletes every key the user holds inside the users module's delete (decision 0087), audited per key;
   * `announceDeleted` after the commit tells every process and the event feed.
   */
  deleteAllOfUser(trx: Executor, ctx: ActionContext, userId: string): Promise<{ id: string; name: string }[]>;
  announceDeleted(keys: readonly { id: string; name: string }[]): void;
}

export interface ApiKeyServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  /** Checks that a key's allowed assets exist. */
  assets: Pick<AssetService, 'missingIds'>;
  /**
   * The other hub processes' key caches (decision 0040): a change here makes them forget what they verified,
   * and theirs make this one forget, so a key revoked anywhere is refused everywhere within the bus's delay.
   */
  invalidation?: Pick<CacheInvalidation, 'invalidate' | 'on'>;
  /**
   * Told a key's new principal after a change committed: the connections it holds open on this process are
   * checked again at once, before the answer (the other processes learn it from `api_key.updated`).
   */
  onKeyChanged?(principal: Principal): void;
}

function newKeyText(): string {
  return formatApiKey(randomBytes(3), randomBytes(32));
}

/** Scopes a creator may hand out: valid ones, and with a key, only what the creator's key itself covers. */
function checkGrantableScopes(creator: Principal, requested: readonly string[]): void {
  for (const scope of requested) {
    if (!isGrantableScope(scope)) {
      throw validationError('scopes', `unknown scope "${scope}"; families are ${scopeFamilies.join(', ')}`);
    }
  }
  if (creator.scopes === null) return;
  const held = creator.scopes;
  for (const scope of requested) {
    const covered = allScopes.filter((s) => scopesCover([scope], s));
    if (!covered.every((s) => scopesCover(held, s))) {
      throw new HubError('forbidden', `a key cannot grant "${scope}": it does not hold it itself`);
    }
  }
}

function checkGrantableRole(creator: Principal, role: Role): void {
  if (roleRank[role] > roleRank[creator.role]) {
    throw new HubError('forbidden', `a ${creator.role} cannot create a ${role} key`);
  }
}

function checkExpiry(expiresAt: string | null | undefined, now: Date): string | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  const when = new Date(expiresAt);
  if (Number.isNaN(when.getTime())) throw validationError('expires_at', 'must be an ISO 8601 timestamp');
  if (when.getTime() <= now.getTime()) throw validationError('expires_at', 'must be in the future');
  return when.toISOString();
}

interface VerifiedKey {
  keyId: string;
  principal: Principal;
  expiresAtMs: number | null;
  lastUsedAtMs: number | null;
  verifiedAtMs: number;
}

/**
 * The role a key acts with: its own, capped by its user's role now (decision 0077). A user demoted
 * after making a key keeps no more through the key than through the console.
 */
function actingRole(row: ApiKeyRow, userRole: string | null): Role {
  const own = row.role as Role;
  if (userRole === null || !(roles as readonly string[]).includes(userRole)) return own;
  const user = userRole as Role;
  return roleRank[user] < roleRank[own] ? user : own;
}

function principalOf(row: ApiKeyRow, userRole: string | null = null): Principal {
  return {
    authType: 'api_key',
    userId: row.user_id,
    role: actingRole(row, userRole),
    scopes: readStringList(row.scopes),
    key: { id: row.id, name: row.name, expiresAt: row.expires_at },
    allowedAssets: row.is_restricted === 1 ? new Set(readStringList(row.allowed_assets)) : null,
  };
}

export function createApiKeyService(deps: ApiKeyServiceDeps): ApiKeyService {
  const { db, clock, audit, events } = deps;
  /** Verified keys by SHA-256 of their text. Only keys that verified are kept; a wrong key always reads. */
  const verified = new Map<string, VerifiedKey>();
  /** Moves on every change of a key: a lookup that began before a change must not keep what it read. */
  let generation = 0;
  const forgetLocally = () => {
    generation += 1;
    verified.clear();
  };
  /** After a change of a key committed here: this process and every other forget what they verified. */
  const forgetVerified = (keyId: string) => {
    forgetLocally();
    deps.invalidation?.invalidate(keyCacheTopic, keyId);
  };
  deps.invalidation?.on(keyCacheTopic, forgetLocally);
  // A user's new role caps the keys they made: what was verified under the old one is read again.
  // A user disabled or deleted (decision 0087): the same event, so their keys are refused at once.
  events.subscribe(forgetLocally, { types: ['user.updated'], reach: 'cluster' });

  async function loadVerified(hash: string, nowMs: number): Promise<VerifiedKey | null> {
    const readAt = generation;
    const row = await findApiKeyByHash(db, hash);
    if (!row || !constantTimeEqual(row.key_hash, hash)) return null;
    if (!(roles as readonly string[]).includes(row.role)) return null;
    // A disabled user's keys are refused while they are disabled, and work again once enabled (decision 0087).
    if (row.user_disabled_at !== null) return null;
    const entry: VerifiedKey = {
      keyId: row.id,
      principal: principalOf(row, row.user_role),
      expiresAtMs: row.expires_at === null ? null : new Date(row.expires_at).getTime(),
      lastUsedAtMs: row.last_used_at === null ? null : new Date(row.last_used_at).getTime(),
      verifiedAtMs: nowMs,
    };
    if (readAt !== generation) return entry;
    if (verified.size >= maxVerifiedKeys) verified.clear();
    verified.set(hash, entry);
    return entry;
  }

  async function checkAllowedAssets(creator: Principal, ids: readonly string[] | undefined): Promise<void> {
    if (creator.allowedAssets !== null) {
      const mine = creator.allowedAssets;
      if (!ids || ids.length === 0) {
        throw new HubError(
          'forbidden',
          'a key limited to some assets can only create keys limited to them too',
        );
      }
      if (ids.some((id) => !mine.has(id)))
        throw validationError('allowed_assets', 'contains unknown asset ids');
    }
    if (ids && ids.length > 0) {
      const missing = await deps.assets.missingIds(ids);
      if (missing.length > 0)
        throw validationError('allowed_assets', `unknown asset ids: ${missing.join(', ')}`);
    }
  }

  async function loadForChange(ctx: ActionContext, id: string): Promise<ApiKeyRow> {
    const row = await findApiKey(db, id);
    if (!row) throw new HubError('not_found', `no API key ${id}`);
    if (row.role === 'owner' && ctx.principal.role !== 'owner') {
      throw new HubError('forbidden', 'only the owner can change or revoke the owner key');
    }
    return row;
  }

  return {
    async create(ctx, input) {
      checkGrantableRole(ctx.principal, input.role);
      checkGrantableScopes(ctx.principal, input.scopes);
      await checkAllowedAssets(ctx.principal, input.allowed_assets);
      const now = clock.now();
      const expiresAt = checkExpiry(input.expires_at, now);
      const raw = newKeyText();
      const parsed = parseApiKey(raw);
      if (!parsed) throw new HubError('internal_error', 'generated key failed its own format');
      const allowed = [...new Set(input.allowed_assets ?? [])];
      const row: ApiKeyRow = {
        id: newId('apiKey'),
        name: input.name,
        prefix: parsed.prefix,
        key_hash: sha256Hex(raw),
        role: input.role,
        scopes: JSON.stringify([...new Set(input.scopes)]),
        allowed_assets: JSON.stringify(allowed),
        is_restricted: allowed.length > 0 ? 1 : 0,
        expires_at: expiresAt,
        user_id: ctx.principal.userId,
        created_by: ctx.principal.key?.id ?? ctx.principal.userId,
        created_at: now.toISOString(),
        last_used_at: null,
      };
      await db.transaction().execute(async (trx) => {
        await insertApiKey(trx, row);
        await audit.record(trx, ctx, {
          action: 'api_key.created',
          targetType: 'api_key',
          targetId: row.id,
          detail: { name: row.name, role: row.role, scopes: readStringList(row.scopes), prefix: row.prefix },
        });
      });
      // Keys are fleet-level records: their events reach unrestricted principals only.
      events.publish('api_key.created', {
        asset_ids: [],
        key_id: row.id,
        name: row.name,
        prefix: row.prefix,
        role: row.role,
      });
      return { ...presentApiKey(row), raw_key: raw };
    },

    async list(page) {
      const { rows, total } = await listApiKeys(db, pageWindow(page));
      return toPage(rows.map(presentApiKey), total, page);
    },

    async get(id) {
      const row = await findApiKey(db, id);
      if (!row) throw new HubError('not_found', `no API key ${id}`);
      return presentApiKey(row);
    },

    async update(ctx, id, input) {
      const row = await loadForChange(ctx, id);
      const changes: Partial<ApiKeyRow> = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.scopes !== undefined) {
        checkGrantableScopes(ctx.principal, input.scopes);
        changes.scopes = JSON.stringify([...new Set(input.scopes)]);
      }
      if (input.allowed_assets !== undefined) {
        if (input.allowed_assets.length === 0 && row.is_restricted === 1) {
          throw validationError(
            'allowed_assets',
            'a key limited to some assets cannot be widened to all; create a new key instead',
          );
        }
        await checkAllowedAssets(ctx.principal, input.allowed_assets);
        changes.allowed_assets = JSON.stringify([...new Set(input.allowed_assets)]);
        if (input.allowed_assets.length > 0) changes.is_restricted = 1;
      }
      if (input.expires_at !== undefined) changes.expires_at = checkExpiry(input.expires_at, clock.now());
      await db.transaction().execute(async (trx) => {
        await updateApiKey(trx, id, changes);
        await audit.record(trx, ctx, {
          action: 'api_key.updated',
          targetType: 'api_key',
          targetId: id,
          detail: { fields: Object.keys(input) },
        });
      });
      events.publish('api_key.updated', {
        asset_ids: [],
        key_id: id,
        name: changes.name ?? row.name,
        fields: Object.keys(input),
      });
      forgetVerified(id);
      deps.onKeyChanged?.(principalOf({ ...row, ...changes }));
      return presentApiKey({ ...row, ...changes });
    },

    async revoke(ctx, id) {
      const row = await loadForChange(ctx, id);
      await db.transaction().execute(async (trx) => {
        await deleteApiKey(trx, id);
        await audit.record(trx, ctx, {
          action: 'api_key.deleted',
          targetType: 'api_key',
          targetId: id,
          detail: { name: row.name, prefix: row.prefix },
        });
      });
      events.publish('api_key.deleted', { asset_ids: [], key_id: id, name: row.name });
      forgetVerified(id);
      return presentApiKey(row);
    },

    async authenticate(text) {
      if (!parseApiKey(text)) return null;
      const hash = sha256Hex(text);
      const now = clock.now();
      const nowMs = now.getTime();
      const cached = verified.get(hash);
      const entry =
        cached && nowMs - cached.verifiedAtMs < verifiedKeyTtlMs && nowMs >= cached.verifiedAtMs
          ? cached
          : await loadVerified(hash, nowMs);
      if (!entry) {
        verified.delete(hash);
        return null;
      }
      if (entry.expiresAtMs !== null && entry.expiresAtMs <= nowMs) return null;
      if (entry.lastUsedAtMs === null || nowMs - entry.lastUsedAtMs >= lastUsedResolutionMs) {
        entry.lastUsedAtMs = nowMs;
        await updateApiKey(db, entry.keyId, { last_used_at: now.toISOString() });
      }
      return entry.principal;
    },

    async expiryOf(id) {
      const row = await findApiKey(db, id);
      return row ? { expiresAt: row.expires_at } : undefined;
    },

    async principalOfKey(id) {
      const row = await findApiKeyWithUserRole(db, id);
      if (!row || !(roles as readonly string[]).includes(row.role)) return null;
      if (row.user_disabled_at !== null) return null;
      if (row.expires_at !== null && new Date(row.expires_at).getTime() <= clock.now().getTime()) return null;
      return principalOf(row, row.user_role);
    },

    async deleteAllOfUser(trx, ctx, userId) {
      const rows = await listApiKeysOfUser(trx, userId);
      for (const row of rows) {
        await deleteApiKey(trx, row.id);
        await audit.record(trx, ctx, {
          action: 'api_key.deleted',
          targetType: 'api_key',
          targetId: row.id,
          detail: { name: row.name, prefix: row.prefix, user_deleted: userId },
        });
      }
      return rows.map((row) => ({ id: row.id, name: row.name }));
    },

    announceDeleted(keys) {
      for (const key of keys)
        events.publish('api_key.deleted', { asset_ids: [], key_id: key.id, name: key.name });
      if (keys.length > 0) forgetVerified(allKeys);
    },

    async rotateOwnerToken(ctx) {
      const { principal } = ctx;
      if (principal.role !== 'owner' || principal.authType !== 'session' || !principal.userId) {
        throw new HubError(
          'forbidden',
          'Only the owner, signed in to the console, can make the owner token.',
        );
      }
      const ownerUserId = principal.userId;
      const made = await db.transaction().execute(async (trx) => {
        const earlier = await listApiKeyIdsByRole(trx, 'owner');
        for (const id of earlier) {
          await deleteApiKey(trx, id);
          await audit.record(trx, ctx, {
            action: 'api_key.deleted',
            targetType: 'api_key',
            targetId: id,
            detail: { name: 'owner token', rotated: true },
          });
        }
        const raw = newKeyText();
        const parsed = parseApiKey(raw);
        if (!parsed) throw new Error('generated key failed its own format');
        const now = clock.now().toISOString();
        const row: ApiKeyRow = {
          id: newId('apiKey'),
          name: 'owner token',
          prefix: parsed.prefix,
          key_hash: sha256Hex(raw),
          role: 'owner',
          scopes: JSON.stringify(['*']),
          allowed_assets: '[]',
          is_restricted: 0,
          expires_at: null,
          user_id: ownerUserId,
          created_by: ownerUserId,
          created_at: now,
          last_used_at: null,
        };
        await insertApiKey(trx, row);
        await audit.record(trx, ctx, {
          action: 'api_key.created',
          targetType: 'api_key',
          targetId: row.id,
          detail: { name: row.name, role: 'owner' },
        });
        return { id: row.id, prefix: row.prefix, raw_key: raw, earlier };
      });
      for (const id of made.earlier)
        events.publish('api_key.deleted', { asset_ids: [], key_id: id, name: 'owner token' });
      events.publish('api_key.created', {
        asset_ids: [],
        key_id: made.id,
        name: 'owner token',
        prefix: made.prefix,
        role: 'owner',
      });
      forgetVerified(allKeys);
      return { id: made.id, prefix: made.prefix, raw_key: made.raw_key, revoked: made.earlier.length };
    },
  };
}
