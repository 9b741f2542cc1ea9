import fs from 'node:fs/promises';
import path from 'node:path';
import { newId } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import { hashPassword, randomToken } from '../../platform/crypto.js';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import type { ApiKeyService } from '../api-keys/api-keys.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { findUserByRole, insertUser } from './users.repository.js';

export const ownerCredentialsFile = 'owner-credentials.txt';

export interface OwnerBootstrapResult {
  created: boolean;
  credentialsPath: string;
  /** Only on first run, for the caller that must hand them over (tests); never logged. */
  password?: string;
  ownerKey?: string;
}

/** Shows the first two characters and hides the rest (spec 5.5.4). */
export function maskSecret(secret: string): string {
  return `${secret.slice(0, 2)}${'*'.repeat(Math.max(0, secret.length - 2))}`;
}

/**
 * On first run, creates the owner account and the owner token and writes both to a 0600 file in the data
 * directory. The log gets only a masked hint and the file's path.
 */
export async function bootstrapOwner(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  apiKeys: ApiKeyService;
  logger: Logger;
  dataDir: string;
  bcryptCost: number;
}): Promise<OwnerBootstrapResult> {
  const credentialsPath = path.join(deps.dataDir, ownerCredentialsFile);
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
    totp_pending_secret: null,
    totp_last_step: null,
    oidc_subject: null,
  };
  // One transaction for the account, its token and the credentials file: the file is written before the commit,
  // so a crash leaves either nothing (the next start bootstraps again) or a complete, usable owner.
  let ownerKey = '';
  await deps.db.transaction().execute(async (trx) => {
    await insertUser(trx, owner);
    await deps.audit.record(trx, null, {
      action: 'user.created',
      targetType: 'user',
      targetId: owner.id,
      detail: { username: owner.username, role: 'owner', bootstrap: true },
    });
    ownerKey = await deps.apiKeys.createOwnerKey(trx, owner.id);
    await fs.mkdir(deps.dataDir, { recursive: true, mode: 0o700 });
    const text = [
      '# svc hub owner credentials, made on first run. Keep this file private (it is mode 0600).',
      `username=${owner.username}`,
      `password=${password}`,
      `owner_token=${ownerKey}`,
      '',
    ].join('\n');
    await fs.writeFile(credentialsPath, text, { mode: 0o600 });
    await fs.chmod(credentialsPath, 0o600);
  });
  deps.logger.info(
    { credentials_file: credentialsPath },
    `owner account created: username "owner", password ${maskSecret(password)}, token ${maskSecret(ownerKey)} — full text in ${credentialsPath}`,
  );
  return { created: true, credentialsPath, password, ownerKey };
}
