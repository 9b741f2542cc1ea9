/**
 * Desktop credentials (spec 5.5.2): an admin sets an asset's VNC password; it is sealed with the secret box
 * (bound to the asset by the seal's context, so a sealed value copied to another row does not open) and never
 * read back through the API. `release` is for the sessions area only, after its `session_start` policy check:
 * the one way a password leaves the hub is in a desktop session create's answer.
 */
import type { DesktopCredentials, DesktopCredentialsSet, DesktopCredentialsStatus } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { ActionContext } from '../../access/principal.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { HubError } from '../../platform/hub-error.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import {
  deleteDesktopCredentials,
  findDesktopCredentials,
  saveDesktopCredentials,
  type DesktopCredentialsRow,
} from './desktop.repository.js';

export interface DesktopCredentialService {
  status(assetId: string): Promise<DesktopCredentialsStatus>;
  set(ctx: ActionContext, assetId: string, input: DesktopCredentialsSet): Promise<DesktopCredentialsStatus>;
  clear(ctx: ActionContext, assetId: string): Promise<DesktopCredentialsStatus>;
  /**
   * The password in clear, or null when none is set. Only a desktop session create calls it, after the
   * interactive policy check passed; nothing else may.
   */
  release(assetId: string): Promise<DesktopCredentials | null>;
  /** An asset was deleted: its password goes with it. */
  forgetAsset(assetId: string): Promise<void>;
}

const passwordContext = (assetId: string) => `desktop-password:${assetId}`;
const usernameContext = (assetId: string) => `desktop-username:${assetId}`;

function present(assetId: string, row: DesktopCredentialsRow | undefined): DesktopCredentialsStatus {
  return {
    asset_id: assetId,
    password_set: row !== undefined,
    username_set: row?.username_sealed != null,
    updated_at: row?.updated_at ?? null,
  };
}

export function createDesktopCredentialService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  box: SecretBox;
  audit: AuditService;
  assets: Pick<AssetService, 'missingIds'>;
}): DesktopCredentialService {
  const { db, clock, box, audit, assets } = deps;
  const requireAsset = async (assetId: string) => {
    if ((await assets.missingIds([assetId])).length > 0)
      throw new HubError('not_found', `no asset ${assetId}`);
  };
  return {
    async status(assetId) {
      await requireAsset(assetId);
      return present(assetId, await findDesktopCredentials(db, assetId));
    },
    async set(ctx, assetId, input) {
      await requireAsset(assetId);
      const row: DesktopCredentialsRow = {
        asset_id: assetId,
        password_sealed: box.seal(input.password, passwordContext(assetId)),
        username_sealed: input.username ? box.seal(input.username, usernameContext(assetId)) : null,
        updated_at: clock.now().toISOString(),
      };
      await db.transaction().execute(async (trx) => {
        await saveDesktopCredentials(trx, row);
        await audit.record(trx, ctx, {
          action: 'desktop.credentials_set',
          targetType: 'asset',
          targetId: assetId,
          assetId,
          detail: { username_set: row.username_sealed !== null },
        });
      });
      return present(assetId, row);
    },
    async clear(ctx, assetId) {
      await requireAsset(assetId);
      // Idempotent: clearing what is not set answers the same state, and audits nothing.
      await db.transaction().execute(async (trx) => {
        const removed = await deleteDesktopCredentials(trx, assetId);
        if (!removed) return;
        await audit.record(trx, ctx, {
          action: 'desktop.credentials_cleared',
          targetType: 'asset',
          targetId: assetId,
          assetId,
        });
      });
      return present(assetId, undefined);
    },
    async release(assetId) {
      const row = await findDesktopCredentials(db, assetId);
      if (!row) return null;
      return {
        password: box.open(row.password_sealed, passwordContext(assetId)),
        username: row.username_sealed ? box.open(row.username_sealed, usernameContext(assetId)) : null,
      };
    },
    async forgetAsset(assetId) {
      await deleteDesktopCredentials(db, assetId);
    },
  };
}
