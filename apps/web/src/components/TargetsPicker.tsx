/**
 * Picks what a saved action or a schedule runs on: assets by name (chips with a remove button), or a group.
 * The parent keeps the choice (`target-choice.ts` turns it into the request's `targets` or `group`); the
 * picker reads the names of a stored record's assets itself.
 */
import { useQuery } from '@tanstack/react-query';
import { hub } from '../api/client';
import { AssetPicker, type PickedAsset } from './AssetPicker';
import { ErrorNotice } from './ErrorNotice';
import { unnamedIds, withAsset, withNames, withoutAsset, type TargetChoice } from './target-choice';

export function useGroupList() {
  return useQuery({
    queryKey: ['groups', 'list', 'all'],
    queryFn: async () => (await hub.call('groups.list', { query: { per_page: 500 } })).data,
    staleTime: 30_000,
  });
}

/** The choice with the picked assets' names, once they are read (ids until then). */
function useNamedChoice(choice: TargetChoice): TargetChoice {
  const ids = unnamedIds(choice);
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
  return names.data ? withNames(choice, names.data) : choice;
}

export function TargetsPicker({
  idPrefix,
  choice: stored,
  onChange,
  problem,
}: {
  idPrefix: string;
  choice: TargetChoice;
  onChange: (next: TargetChoice) => void;
  problem?: string | undefined;
}) {
  const groups = useGroupList();
  const choice = useNamedChoice(stored);
  return (
    <>
      <fieldset className="target-mode">
        <legend>Targets</legend>
        <label className="checkbox">
          <input
            type="radio"
            name={`${idPrefix}-mode`}
            checked={choice.mode === 'assets'}
            onChange={() => {
              onChange({ ...choice, mode: 'assets' });
            }}
          />
          Assets
        </label>
        <label className="checkbox">
          <input
            type="radio"
            name={`${idPrefix}-mode`}
            checked={choice.mode === 'group'}
            onChange={() => {
              onChange({ ...choice, mode: 'group' });
            }}
          />
          A group
        </label>
      </fieldset>
      {choice.mode === 'assets' ? (
        <div className="field">
          <AssetPicker
            label="Add an asset"
            picked={new Set(choice.picked.map((p) => p.id))}
            onPick={(asset) => {
              onChange(withAsset(choice, asset));
            }}
          />
          {choice.picked.length > 0 ? (
            <ul className="chips" aria-label="Chosen assets">
              {choice.picked.map((p) => (
                <li key={p.id} className="chip">
                  {p.name}
                  <button
                    type="button"
                    className="chip-remove"
                    aria-label={`Remove ${p.name}`}
                    onClick={() => {
                      onChange(withoutAsset(choice, p.id));
                    }}
                  >
                    ×
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted small">No asset chosen yet.</p>
          )}
        </div>
      ) : (
        <div className="field">
          <label htmlFor={`${idPrefix}-group`}>Group</label>
          <select
            id={`${idPrefix}-group`}
            value={choice.groupId}
            onChange={(e) => {
              onChange({ ...choice, groupId: e.target.value });
            }}
          >
            <option value="">Choose a group</option>
            {groups.data?.map((g) => (
              <option key={g.id} value={g.id}>
                {g.name} ({g.asset_ids.length} asset{g.asset_ids.length === 1 ? '' : 's'})
              </option>
            ))}
          </select>
          {groups.isError && <ErrorNotice error={groups.error} />}
        </div>
      )}
      {problem && <span className="field-error">{problem}</span>}
    </>
  );
}
