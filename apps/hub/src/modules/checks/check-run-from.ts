/**
 * Who may have a check run from an agent (decision 0084): whoever may run a command on that asset. The caller
 * sees the asset and holds `assets:exec`; on the hub's own host, whose loopback holds the hub's database, the
 * admin role too (as for exec). The asset must exist and have an agent.
 */
import { canSeeAsset, hasScope, type Principal } from '../../access/principal.js';
import { requireHubHostAccess } from '../../agents/agent-call.js';
import type { AssetReads } from '../../agents/asset-reads.js';
import { HubError, validationError } from '../../platform/hub-error.js';

export async function checkRunFrom(
  assets: Pick<AssetReads, 'row'>,
  principal: Principal,
  assetId: string | null,
): Promise<void> {
  if (assetId === null) return;
  if (!hasScope(principal, 'assets:exec')) {
    throw new HubError(
      'insufficient_scope',
      'a check run from an agent needs the assets:exec scope, as running a command there does',
    );
  }
  // A hidden asset answers as an unknown one.
  const row = canSeeAsset(principal, assetId) ? await assets.row(assetId) : undefined;
  if (!row) throw new HubError('not_found', `no asset ${assetId} (run_from_asset_id)`);
  if (row.source !== 'agent') {
    throw validationError('run_from_asset_id', `asset ${row.name} (${row.id}) has no agent to run checks`);
  }
  requireHubHostAccess(principal, row, 'check.run');
}
