/**
 * The names of assets a saved action or schedule already targets, for the asset picker when it is edited:
 * the picker shows names, the record keeps ids.
 */
import { useQuery } from '@tanstack/react-query';
import { hub } from '../../api/client';
import type { PickedAsset } from '../../components/AssetPicker';
import type { TargetChoice } from './TargetFields';

/** The choice a stored record makes (names filled in later by `useNamedChoice`). */
export function storedChoice(record: { targets: string[] | null; group: string | null }): TargetChoice {
  if (record.group !== null) return { mode: 'group', picked: [], groupId: record.group };
  return { mode: 'assets', picked: (record.targets ?? []).map((id) => ({ id, name: id })), groupId: '' };
}

/** The choice with the picked assets' names, once they are read (ids until then). */
export function useNamedChoice(choice: TargetChoice): TargetChoice {
  const ids = choice.picked.filter((p) => p.name === p.id).map((p) => p.id);
  const names = useQuery({
    queryKey: ['assets', 'names', ids],
    enabled: ids.length > 0,
    staleTime: 60_000,
    queryFn: async (): Promise<PickedAsset[]> =>
      Promise.all(
        ids.map(async (id) => {
          const asset = (await hub.call('assets.get', { params: { id } })).data;
          return { id, name: asset.name };
        }),
      ),
  });
  if (!names.data) return choice;
  const byId = new Map(names.data.map((n) => [n.id, n.name]));
  return { ...choice, picked: choice.picked.map((p) => ({ ...p, name: byId.get(p.id) ?? p.name })) };
}
