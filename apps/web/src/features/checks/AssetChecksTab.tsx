/** The asset page's Checks tab: the service checks about this asset, and new ones made about it. */
import { useState } from 'react';
import type { AssetTabProps } from '../../pages/asset/asset-tabs';
import { useSession } from '../../app/session';
import { useT } from '../../i18n/I18nProvider';
import { ChecksTable } from './ChecksTable';

export function AssetChecksTab({ asset }: AssetTabProps) {
  const { t } = useT();
  const { canMutate } = useSession();
  const [creating, setCreating] = useState(false);
  return (
    <section aria-label={t('checks.ofAsset', { name: asset.name })}>
      {canMutate && (
        <div className="row-actions">
          <button
            type="button"
            onClick={() => {
              setCreating(true);
            }}
          >
            {t('checks.new')}
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
