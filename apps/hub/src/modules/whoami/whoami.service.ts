import type { Whoami } from '@svc/protocol';
import type { WriteVersions } from '../../platform/db/write-versions.js';
import type { Principal } from '../../access/principal.js';
import { visibleAssetIds, type AssetService } from '../assets/assets.service.js';

export interface WhoamiServiceDeps {
  assets: Pick<AssetService, 'count'>;
  /** Where present (SQLite), the unrestricted asset count is kept until the assets table is written. */
  writeVersions?: WriteVersions | null;
}

export function createWhoamiService(deps: WhoamiServiceDeps) {
  let counted: { version: number; count: number } | null = null;

  async function countVisible(principal: Principal): Promise<number> {
    const versions = deps.writeVersions;
    if (principal.allowedAssets !== null || !versions) {
      return deps.assets.count(visibleAssetIds(principal));
    }
    const version = versions.of('assets');
    if (counted?.version === version) return counted.count;
    const count = await deps.assets.count(null);
    counted = { version, count };
    return count;
  }

  return {
    async describe(principal: Principal): Promise<Whoami> {
      const available = await countVisible(principal);
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
