import type { Whoami } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { Principal } from '../access/principal.js';
import { countAssets } from '../assets/assets.repository.js';
import { visibleAssetIds } from '../assets/assets.service.js';

export function createWhoamiService(deps: { db: Kysely<Database> }) {
  return {
    async describe(principal: Principal): Promise<Whoami> {
      const available = await countAssets(deps.db, visibleAssetIds(principal));
      const base: Whoami = {
        user_id: principal.userId,
        role: principal.role,
        auth_type: principal.authType,
        scopes: principal.scopes ? [...principal.scopes] : ['*'],
        available_assets: available,
      };
      if (!principal.key) return base;
      return {
        ...base,
        key_id: principal.key.id,
        key_name: principal.key.name,
        expires_at: principal.key.expiresAt,
        allowed_assets: principal.allowedAssets ? [...principal.allowedAssets] : [],
      };
    },
  };
}

export type WhoamiService = ReturnType<typeof createWhoamiService>;
