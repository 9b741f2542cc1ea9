/**
 * What saved actions, schedules and bulk actions run on: assets picked by name, or a group. The parent keeps
 * the choice; `targetBody` turns it into the `targets` or `group` of a request.
 */
import { useQuery } from '@tanstack/react-query';
import { hub } from '../../api/client';
import { AssetPicker, type PickedAsset } from '../../components/AssetPicker';
import { ErrorNotice } from '../../components/ErrorNotice';

export interface TargetChoice {
  mode: 'assets' | 'group';
  picked: PickedAsset[];
  groupId: string;
}

export const noTargets: TargetChoice = { mode: 'assets', picked: [], groupId: '' };

export function targetsChosen(choice: TargetChoice): boolean {
  return choice.mode === 'assets' ? choice.picked.length > 0 : choice.groupId !== '';
}

export function targetBody(choice: TargetChoice): { targets: string[] } | { group: string } {
  return choice.mode === 'assets' ? { targets: choice.picked.map((p) => p.id) } : { group: choice.groupId };
}

export function useGroupList() {
  return useQuery({
    queryKey: ['groups', 'list', 'all'],
    queryFn: async () => (await hub.call('groups.list', { query: { per_page: 500 } })).data,
    staleTime: 30_000,
  });
}

export function TargetFields({
  idPrefix,
  choice,
  onChange,
  problem,
}: {
  idPrefix: string;
  choice: TargetChoice;
  onChange: (next: TargetChoice) => void;
  problem?: string | undefined;
}) {
  const groups = useGroupList();
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
              onChange({ ...choice, picked: [...choice.picked, asset] });
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
                      onChange({ ...choice, picked: choice.picked.filter((x) => x.id !== p.id) });
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
