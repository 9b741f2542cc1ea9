/**
 * Picks what a saved action or a schedule runs on: assets by name (chips with a remove button), or a group.
 * The parent keeps the choice (`target-choice.ts` turns it into the request's `targets` or `group`); the
 * picker reads the names of a stored record's assets itself.
 */
import { useQuery } from '@tanstack/react-query';
import { hub } from '../api/client';
import { useT } from '../i18n/I18nProvider';
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
  const { t } = useT();
  const groups = useGroupList();
  const choice = useNamedChoice(stored);
  return (
    <>
      <fieldset className="target-mode">
        <legend>{t('targets.legend')}</legend>
        <label className="checkbox">
          <input
            type="radio"
            name={`${idPrefix}-mode`}
            checked={choice.mode === 'assets'}
            onChange={() => {
              onChange({ ...choice, mode: 'assets' });
            }}
          />
          {t('targets.assets')}
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
          {t('targets.group')}
        </label>
      </fieldset>
      {choice.mode === 'assets' ? (
        <div className="field">
          <AssetPicker
            label={t('targets.add')}
            picked={new Set(choice.picked.map((p) => p.id))}
            onPick={(asset) => {
              onChange(withAsset(choice, asset));
            }}
          />
          {choice.picked.length > 0 ? (
            <ul className="chips" aria-label={t('targets.chosen')}>
              {choice.picked.map((p) => (
                <li key={p.id} className="chip">
                  <span translate="no">{p.name}</span>
                  <button
                    type="button"
                    className="chip-remove"
                    aria-label={t('common.removeNamed', { name: p.name })}
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
            <p className="muted small">{t('targets.none')}</p>
          )}
        </div>
      ) : (
        <div className="field">
          <label htmlFor={`${idPrefix}-group`}>{t('targets.groupLabel')}</label>
          <select
            id={`${idPrefix}-group`}
            value={choice.groupId}
            onChange={(e) => {
              onChange({ ...choice, groupId: e.target.value });
            }}
          >
            <option value="">{t('targets.chooseGroup')}</option>
            {groups.data?.map((g) => (
              <option key={g.id} value={g.id}>
                {t('targets.groupOption', { name: g.name, n: g.asset_ids.length })}
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
