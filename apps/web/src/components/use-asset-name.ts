import { useQuery } from '@tanstack/react-query';
import { hub } from '../api/client';

/** An asset's name: its id while loading or when it is gone, null for no asset. */
export function useAssetName(assetId: string | null): string | null {
  const asset = useQuery({
    queryKey: ['assets', 'name', assetId],
    queryFn: async () => (await hub.call('assets.get', { params: { id: assetId ?? '' } })).data,
    enabled: assetId !== null,
    staleTime: 60_000,
    retry: false,
  });
  return assetId === null ? null : (asset.data?.name ?? assetId);
}
