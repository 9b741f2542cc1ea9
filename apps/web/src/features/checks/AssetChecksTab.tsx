/** The asset page's Checks tab: the service checks about this asset, and new ones made about it. */
import { useState } from 'react';
import type { AssetTabProps } from '../../pages/asset/asset-tabs';
import { useSession } from '../../app/session';
import { ChecksTable } from './ChecksTable';

export function AssetChecksTab({ asset }: AssetTabProps) {
  const { canMutate } = useSession();
  const [creating, setCreating] = useState(false);
  return (
    <section aria-label={`Service checks of ${asset.name}`}>
      {canMutate && (
        <div className="row-actions">
          <button
            type="button"
            onClick={() => {
              setCreating(true);
            }}
          >
            New check
          </button>
        </div>
      )}
      <ChecksTable
        assetId={asset.id}
        creating={creating}
        onCreated={() => {
          setCreating(false);
        }}
      />
    </section>
  );
}
