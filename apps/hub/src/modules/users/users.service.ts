import fs from 'node:fs/promises';
import {
  limits,
  newId,
  type PasswordChange,
  type User,
  type UserCreate,
  type Role,
  type UserDeleteQuery,
  type UserUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { Database, Executor } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { PasswordHasher } from '../../platform/password-hasher.js';
import type { ActionContext } from '../../access/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import type { ApiKeyService } from '../keys/keys.service.js';
import type { ScheduleService } from '../schedules/schedules.service.js';
import { deleteOtherSessions, deleteSessionsForUser } from './sessions.repository.js';
import {
  consumeTotpStep,
  countOtherActiveAdmins,
  deleteUser,
  disabledUserIds,
  disableTotp,
  enableTotp,
  findUser,
  findUserByUsername,
  insertUser,
  isUniqueViolation,
  listUsers,
  setPendingTotp,
  updateUser,
  type UserRow,
} from './users.repository.js';

/*
 * What other modules keep of a user (passkeys, push subscriptions, terminal snippets, bookmarks, saved filters): a user's
 * delete asks them to let it go in its own transaction (decision 0087, addendum), so nothing of a deleted
 * person stays behind, and what others still use goes to the heir named by `reassign_to`.
 */

/** A user being deleted, as the modules holding their data need to know them. */
interface DeletedUser {
  userId: string;
  /** The user's API keys, deleted in the same transaction: what a key owned was the user's too. */
  keyIds: readonly string[];
  /** The user named by `reassign_to`, who takes what others still use; null to keep it ownerless. */
  heirId: string | null;
}

/** A module that keeps data of users. */
export interface UserDataHolder {
  /**
   * Inside the delete's transaction: removes the user's data, or hands what others use to the heir. Answers
   * counts for the `user.deleted` audit entry (`{ push_subscriptions_deleted: 2 }`).
   */
  forgetUser(trx: Executor, ctx: ActionContext, user: DeletedUser): Promise<Record<string, number>>;
}

export interface UserService {
  list(page: PageRequest): Promise<Page<User>>;
  create(ctx: ActionContext, input: UserCreate): Promise<User>;
  update(ctx: ActionContext, id: string, input: UserUpdate): Promise<User>;
  /** No sign-in, sessions ended, keys refused, schedules refused their runs; kept until enabled (0087). */
  disable(ctx: ActionContext, id: string): Promise<User>;
  /** The account signs in again; its keys and schedules work again. */
  enable(ctx: ActionContext, id: string): Promise<User>;
  /**
   * The account, its sessions, keys, passkeys, push subscriptions, snippets, bookmarks and saved filters go; its schedules and
   * shared snippets go to `reassign_to` (a schedule left without one refuses the delete).
   */
  remove(ctx: ActionContext, id: string, query: UserDeleteQuery): Promise<User>;
  /**
   * The signed-in user sets a new password, proving the current one. Their other sessions end; for the owner,
   * the first-run credentials file is deleted (it held the generated password).
   */
  changeOwnPassword(ctx: ActionContext, input: PasswordChange): Promise<void>;

  // What sign-in (the auth module) reads of accounts: credentials, role, second factor.
  account(id: string): Promise<UserRow | undefined>;
  /** The users disabled now: what sends to people (Web Push) leaves out (decision 0087, addendum). */
  disabledIds(): Promise<ReadonlySet<string>>;
  accountByUsername(username: string): Promise<UserRow | undefined>;

  // What two-factor sign-in (the auth module) writes of accounts: the TOTP columns.
  /** Stores (or clears) the sealed secret of a setup not yet confirmed. */
  setPendingTotp(id: string, sealed: string | null): Promise<void>;
  /** Records a TOTP step as used: true once per step, false for it or an earlier one again. */
  consumeTotpStep(id: string, step: number): Promise<boolean>;
  /** Turns TOTP on inside the caller's transaction: false when it was on already. */
  enableTotp(trx: Executor, id: string, sealedSecret: string, step: number): Promise<boolean>;
  /** Turns TOTP off inside the caller's transaction. */
  disableTotp(trx: Executor, id: string): Promise<void>;
}

function presentUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    role: row.role as User['role'],
    created_at: row.created_at,
    updated_at: row.updated_at,
    disabled_at: row.disabled_at,
  };
}

/** The schedules of a refusal, named: at most ten, then how many more. */
function nameSchedules(schedules: readonly { id: string; name: string }[]): string {
  const named = schedules.slice(0, 10).map((s) => `"${s.name}" (${s.id})`);
  const more = schedules.length > 10 ? ` and ${String(schedules.length - 10)} more` : '';
  return named.join(', ') + more;
}

/** bcrypt reads only the first 72 bytes: a longer password would silently be cut, so it is refused. */
function checkPassword(password: string): void {
  if (Buffer.byteLength(password, 'utf8') > limits.passwordMaxBytes) {
    throw validationError('password', `must be at most ${limits.passwordMaxBytes} bytes (UTF-8)`);
  }
}

/**
 * A user with a password can do everything its role allows, so a key may manage users only when it could do
 * all of that itself: unrestricted and holding `*`. Otherwise a narrow admin key could mint a full admin.
 */
function checkCanManageUsers(ctx: ActionContext): void {
  const { principal } = ctx;
  if (principal.authType !== 'api_key') return;
  if (principal.allowedAssets !== null || !(principal.scopes ?? []).includes('*')) {
    throw new HubError(
      'forbidden',
      'Managing users needs an unrestricted key with the scope "*" (or a console session).',
    );
  }
}

export function createUserService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  passwords: PasswordHasher;
  /** The owner's first-run credentials file, deleted once the owner has chosen a password. */
  ownerCredentialsPath: string;
  /** A deleted user's keys go with them. */
  keys: Pick<ApiKeyService, 'deleteAllOfUser' | 'announceDeleted'>;
  /** The schedules that run as a user (the schedules module, built after this one). */
  schedules: () => Pick<ScheduleService, 'runningAs' | 'reassignRunAs'>;
  /** What other modules keep of a user: removed, or handed to the heir, in the delete's transaction. */
  userData: () => readonly UserDataHolder[];
}): UserService {
  const { db, clock, audit, events, passwords } = deps;

  /**
   * The user an admin may disable or delete (decision 0087): not the owner, not themselves, and never the last
   * enabled admin, so someone can always manage users.
   */
  async function loadForRemoval(ctx: ActionContext, id: string, verb: string): Promise<UserRow> {
    checkCanManageUsers(ctx);
    const row = await findUser(db, id);
    if (!row) throw new HubError('not_found', `no user ${id}`);
    if (row.role === 'owner') throw new HubError('conflict', `the owner account cannot be ${verb}`);
    if (ctx.principal.userId === id)
      throw new HubError('conflict', `you cannot ${verb.replace(/d$/, '')} your own account`);
    if (row.role === 'admin' && row.disabled_at === null && (await countOtherActiveAdmins(db, id)) === 0) {
      throw new HubError('conflict', `${row.username} is the last enabled admin and cannot be ${verb}`);
    }
    return row;
  }
  return {
    async list(page) {
      const { rows, total } = await listUsers(db, pageWindow(page));
      return toPage(rows.map(presentUser), total, page);
    },

    async create(ctx, input) {
      checkCanManageUsers(ctx);
      checkPassword(input.password);
      const username = input.username.toLowerCase();
      if (await findUserByUsername(db, username)) {
        throw new HubError('conflict', `a user named ${username} exists already`);
      }
      const now = clock.now().toISOString();
      const row: UserRow = {
        id: newId('user'),
        username,
        password_hash: await passwords.hash(input.password),
        role: input.role,
        created_at: now,
        updated_at: now,
        totp_secret: null,
        must_change_password: 0,
        totp_pending_secret: null,
        totp_last_step: null,
        oidc_subject: null,
        disabled_at: null,
      };
      try {
        await db.transaction().execute(async (trx) => {
          await insertUser(trx, row);
          await audit.record(trx, ctx, {
            action: 'user.created',
            targetType: 'user',
            targetId: row.id,
            detail: { username, role: row.role },
          });
        });
      } catch (error) {
        // the lookup above and this insert are apart (bcrypt runs between): a concurrent create can win
        if (isUniqueViolation(error))
          throw new HubError('conflict', `a user named ${username} exists already`);
        throw error;
      }
      // Users are fleet-level records: their events reach unrestricted principals only.
      events.publish('user.created', { asset_ids: [], user_id: row.id, username, role: row.role });
      return presentUser(row);
    },

    async update(ctx, id, input) {
      checkCanManageUsers(ctx);
      const row = await findUser(db, id);
      if (!row) throw new HubError('not_found', `no user ${id}`);
      if (row.role === 'owner' && ctx.principal.role !== 'owner') {
        throw new HubError('forbidden', 'only the owner can change the owner account');
      }
      if (row.role === 'owner' && input.role !== undefined) {
        throw new HubError('forbidden', 'the owner role cannot be changed');
      }
      const changes: Partial<UserRow> = { updated_at: clock.now().toISOString() };
      if (input.role !== undefined) changes.role = input.role;
      if (input.password !== undefined) {
        checkPassword(input.password);
        changes.password_hash = await passwords.hash(input.password);
      }
      await db.transaction().execute(async (trx) => {
        await updateUser(trx, id, changes);
        // A new password or role ends every session the user has: they sign in again under the new terms.
        await deleteSessionsForUser(trx, id);
        await audit.record(trx, ctx, {
          action: input.password !== undefined ? 'user.password_reset' : 'user.updated',
          targetType: 'user',
          targetId: id,
          detail: { fields: Object.keys(input) },
        });
      });
      events.publish('user.updated', {
        asset_ids: [],
        user_id: id,
        change: input.password !== undefined ? 'password_reset' : 'role',
      });
      return presentUser({ ...row, ...changes });
    },

    async disable(ctx, id) {
      const row = await loadForRemoval(ctx, id, 'disabled');
      if (row.disabled_at !== null) return presentUser(row);
      const now = clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        await updateUser(trx, id, { disabled_at: now, updated_at: now });
        await deleteSessionsForUser(trx, id);
        await audit.record(trx, ctx, {
          action: 'user.disabled',
          targetType: 'user',
          targetId: id,
          detail: { username: row.username, role: row.role },
        });
      });
      // Every process: the sessions' streams close, the key caches forget, held keys are read again.
      events.publish('user.updated', { asset_ids: [], user_id: id, change: 'disabled' });
      return presentUser({ ...row, disabled_at: now, updated_at: now });
    },

    async enable(ctx, id) {
      checkCanManageUsers(ctx);
      const row = await findUser(db, id);
      if (!row) throw new HubError('not_found', `no user ${id}`);
      if (row.disabled_at === null) return presentUser(row);
      const now = clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        await updateUser(trx, id, { disabled_at: null, updated_at: now });
        await audit.record(trx, ctx, {
          action: 'user.enabled',
          targetType: 'user',
          targetId: id,
          detail: { username: row.username, role: row.role },
        });
      });
      events.publish('user.updated', { asset_ids: [], user_id: id, change: 'enabled' });
      return presentUser({ ...row, disabled_at: null, updated_at: now });
    },

    async remove(ctx, id, query) {
      const row = await loadForRemoval(ctx, id, 'deleted');
      let heir: UserRow | undefined;
      if (query.reassign_to !== undefined) {
        heir = await findUser(db, query.reassign_to);
        if (!heir || heir.id === id || heir.disabled_at !== null) {
          throw validationError('reassign_to', 'must name another user who is enabled');
        }
        // The heir runs the schedules and edits the shared snippets: a viewer can do neither.
        if (heir.role === 'viewer') {
          throw validationError(
            'reassign_to',
            `${heir.username} is a viewer, who cannot run schedules or edit snippets; name an operator or admin`,
          );
        }
      }
      const removed = await db.transaction().execute(async (trx) => {
        const schedules = deps.schedules();
        const running = await schedules.runningAs(trx, id);
        if (running.length > 0 && !heir) {
          throw new HubError(
            'conflict',
            `${String(running.length)} schedule(s) run as ${row.username}: ${nameSchedules(running)}; ` +
              'delete them, or pass reassign_to with the user they should run as',
          );
        }
        const moved = heir
          ? await schedules.reassignRunAs(trx, ctx, id, { id: heir.id, role: heir.role as Role })
          : [];
        const keys = await deps.keys.deleteAllOfUser(trx, ctx, id);
        const gone = { userId: id, keyIds: keys.map((k) => k.id), heirId: heir?.id ?? null };
        let forgotten: Record<string, number> = {};
        for (const holder of deps.userData()) {
          forgotten = { ...forgotten, ...(await holder.forgetUser(trx, ctx, gone)) };
        }
        await deleteSessionsForUser(trx, id);
        await deleteUser(trx, id);
        // The audit trail is never cut: earlier entries keep the id, and this one says whose it was.
        await audit.record(trx, ctx, {
          action: 'user.deleted',
          targetType: 'user',
          targetId: id,
          detail: {
            username: row.username,
            role: row.role,
            keys_deleted: keys.length,
            schedules_reassigned: moved.length,
            ...forgotten,
            ...(heir ? { reassigned_to: heir.id } : {}),
          },
        });
        return keys;
      });
      events.publish('user.updated', { asset_ids: [], user_id: id, change: 'deleted' });
      deps.keys.announceDeleted(removed);
      return presentUser(row);
    },

    async changeOwnPassword(ctx, input) {
      const { principal } = ctx;
      const row = principal.userId ? await findUser(db, principal.userId) : undefined;
      if (principal.authType !== 'session' || !row) throw new HubError('unauthorized');
      checkPassword(input.new_password);
      if (!(await passwords.verify(input.current_password, row.password_hash))) {
        throw validationError('current_password', 'is not the current password');
      }
      if (input.new_password === input.current_password) {
        throw validationError('new_password', 'must differ from the current password');
      }
      const now = clock.now().toISOString();
      const passwordHash = await passwords.hash(input.new_password);
      await db.transaction().execute(async (trx) => {
        await updateUser(trx, row.id, {
          password_hash: passwordHash,
          must_change_password: 0,
          updated_at: now,
        });
        await deleteOtherSessions(trx, row.id, principal.sessionId ?? '');
        await audit.record(trx, ctx, {
          action: 'user.password_changed',
          targetType: 'user',
          targetId: row.id,
          detail: { first_sign_in: row.must_change_password === 1 },
        });
      });
      events.publish('user.updated', { asset_ids: [], user_id: row.id, change: 'password_changed' });
      if (row.role === 'owner') await fs.rm(deps.ownerCredentialsPath, { force: true });
    },

    account: (id) => findUser(db, id),
    disabledIds: async () => new Set(await disabledUserIds(db)),
    accountByUsername: (username) => findUserByUsername(db, username),
    setPendingTotp: (id, sealed) => setPendingTotp(db, id, sealed),
    consumeTotpStep: (id, step) => consumeTotpStep(db, id, step),
    enableTotp,
    disableTotp,
  };
}
