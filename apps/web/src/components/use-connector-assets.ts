/** The assets a connector of one kind brought (the NAS, Portainer endpoints, Home Assistant), by name. */
import { useQuery } from '@tanstack/react-query';
import type { Asset, ConnectorAssetKind } from '@svc/protocol';
import { hub } from '../api/client';

/** A homelab has a handful; one page of the largest size holds them. */
const perPage = 500;

export function useConnectorAssets(kind: ConnectorAssetKind) {
  return useQuery({
    queryKey: ['assets', 'connector', kind],
    queryFn: async (): Promise<Asset[]> => {
      const page = await hub.call('assets.list', { query: { per_page: perPage } });
      return page.data.filter((a) => a.connector?.kind === kind).sort((a, b) => a.name.localeCompare(b.name));
    },
  });
}

/** The asset named by `?asset=`, or the first one. */
export function pickAsset(assets: readonly Asset[], wanted: string | null): Asset | null {
  return assets.find((a) => a.id === wanted) ?? assets[0] ?? null;
}
