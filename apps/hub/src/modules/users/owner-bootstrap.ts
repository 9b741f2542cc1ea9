import fs from 'node:fs/promises';
import path from 'node:path';
import { newId } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import { hashPassword, randomToken } from '../../platform/crypto.js';
import { ownerCredentialsFile } from '../../platform/data-dir.js';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import type { ActionContext } from '../../access/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import { findUserByRole, insertUser } from './users.repository.js';

export { ownerCredentialsFile };

export function ownerCredentialsPath(dataDir: string): string {
  return path.join(dataDir, ownerCredentialsFile);
}

export interface OwnerBootstrapResult {
  created: boolean;
  credentialsPath: string;
  /** Only on first run, for the caller that must hand it over (tests); never logged. */
  password?: string;
}

/** Shows the first two characters and hides the rest (spec 5.5.4). */
export function maskSecret(secret: string): string {
  return `${secret.slice(0, 2)}${'*'.repeat(Math.max(0, secret.length - 2))}`;
}

/**
 * On first run, creates the owner account with a generated password that must be changed at the first sign-in,
 * and writes it to a 0600 file in the data directory; the log gets only a masked hint and the file's path. The
 * file holds no token: it is deleted when the owner sets a new password (users.service), and the owner token is
 * made, shown once, by `POST /api/auth/owner-token` (security rule 10: nothing in the data directory should
 * keep working as an owner credential).
 */
export async function bootstrapOwner(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  logger: Logger;
  dataDir: string;
  bcryptCost: number;
}): Promise<OwnerBootstrapResult> {
  const credentialsPath = ownerCredentialsPath(deps.dataDir);
  const existing = await findUserByRole(deps.db, 'owner');
  if (existing) return { created: false, credentialsPath };

  const password = randomToken(15);
  const now = deps.clock.now().toISOString();
  const owner = {
    id: newId('user'),
    username: 'owner',
    password_hash: await hashPassword(password, deps.bcryptCost),
    role: 'owner',
    created_at: now,
    updated_at: now,
    totp_secret: null,
    must_change_password: 1,
    totp_pending_secret: null,
    totp_last_step: null,
    oidc_subject: null,
    disabled_at: null,
  };
  // The file is written before the commit, so a crash leaves either nothing (the next start bootstraps again)
  // or an owner whose password is in the file. Several processes starting at once on one PostgreSQL: the
  // username is unique, so one insert wins and the others fail before writing a file.
  const made = await deps.db
    .transaction()
    .execute(async (trx) => {
      await insertUser(trx, owner);
      await deps.audit.record(trx, null, {
        action: 'user.created',
        targetType: 'user',
        targetId: owner.id,
        detail: { username: owner.username, role: 'owner', bootstrap: true },
      });
      await fs.mkdir(deps.dataDir, { recursive: true, mode: 0o700 });
      const text = [
        '# svc hub owner account, made on first run. Keep this file private (it is mode 0600).',
        '# Sign in with it once: the hub asks for a new password and then deletes this file.',
        '# The owner token is made afterwards, shown once: POST /api/auth/owner-token (see the README).',
        `username=${owner.username}`,
        `password=${password}`,
        '',
      ].join('\n');
      await fs.writeFile(credentialsPath, text, { mode: 0o600 });
      await fs.chmod(credentialsPath, 0o600);
      return true;
    })
    .catch(async (error: unknown) => {
      if (await findUserByRole(deps.db, 'owner')) return false;
      throw error;
    });
  if (!made) {
    deps.logger.info(
      'owner account exists: another hub process made it (its credentials file is in its data directory)',
    );
    return { created: false, credentialsPath };
  }
  deps.logger.info(
    { credentials_file: credentialsPath },
    `owner account created: username "owner", password ${maskSecret(password)} — full text in ${credentialsPath}; sign in once to choose a new one`,
  );
  return { created: true, credentialsPath, password };
}

/**
 * The owner, acting in this process as if signed in (no session row): for local tooling with the data directory
 * in hand — test harnesses, benchmarks — that needs the owner token without the console.
 */
export async function localOwnerContext(db: Kysely<Database>): Promise<ActionContext> {
  const owner = await findUserByRole(db, 'owner');
  if (!owner) throw new Error('this hub has no owner yet');
  return {
    principal: {
      authType: 'session',
      userId: owner.id,
      role: 'owner',
      scopes: null,
      key: null,
      allowedAssets: null,
    },
    requestId: null,
    ip: '127.0.0.1',
  };
}
