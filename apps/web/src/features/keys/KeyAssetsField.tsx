/**
 * The assets a key is limited to: search the hub's assets by name (`GET /search?type=asset`) and add them;
 * each chosen one is a chip with a remove button. Empty means every asset, which is said in words, since it
 * is the wider choice. Names of assets chosen earlier are read back from the hub (a bounded number).
 */
import { useState } from 'react';
import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query';
import { hub } from '../../api/client';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useDebounced } from '../../components/use-debounced';
import { useT } from '../../i18n/I18nProvider';

/** Chosen assets whose names are looked up one by one; past this the id is shown. */
const namesLookedUp = 50;

export function KeyAssetsField({
  value,
  onChange,
  problem,
  locked = false,
}: {
  value: readonly string[];
  onChange: (value: string[]) => void;
  problem: string | undefined;
  /** A key limited to some assets cannot be widened to all: the last one cannot be removed. */
  locked?: boolean;
}) {
  const { t } = useT();
  const [text, setText] = useState('');
  const [names, setNames] = useState<Record<string, string>>({});
  const q = useDebounced(text.trim(), 150);
  const hits = useQuery({
    queryKey: ['search', 'asset', q],
    queryFn: async () => (await hub.call('search', { query: { q, type: 'asset', per_page: 10 } })).data,
    enabled: q.length > 0,
    placeholderData: keepPreviousData,
  });
  const lookups = useQueries({
    queries: value.slice(0, namesLookedUp).map((id) => ({
      queryKey: ['assets', 'detail', id],
      queryFn: async () => (await hub.call('assets.get', { params: { id } })).data,
      enabled: names[id] === undefined,
      staleTime: 60_000,
    })),
  });
  const nameOf = (id: string, index: number) => names[id] ?? lookups[index]?.data?.name ?? id;
  const choices = q.length > 0 ? (hits.data ?? []).filter((hit) => !value.includes(hit.id)) : [];

  return (
    <fieldset className="asset-picker">
      <legend>{t('keys.allowedAssets')}</legend>
      {value.length === 0 ? (
        <p className="muted small">{t('keys.allAssets')}</p>
      ) : (
        <ul className="chips" aria-label={t('keys.chosenAssets')}>
          {value.map((id, index) => (
            <li key={id} className="chip">
              <span translate="no">{nameOf(id, index)}</span>
              <button
                type="button"
                className="chip-remove"
                translate="no"
                aria-label={t('common.removeNamed', { name: nameOf(id, index) })}
                disabled={locked && value.length === 1}
                onClick={() => {
                  onChange(value.filter((v) => v !== id));
                }}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <label>
        {t('keys.findAsset')}
        <input
          type="search"
          value={text}
          placeholder={t('keys.findPlaceholder')}
          onChange={(e) => {
            setText(e.target.value);
          }}
        />
      </label>
      {hits.isError && <ErrorNotice error={hits.error} />}
      {choices.length > 0 && (
        <ul className="picker-results" aria-label={t('keys.matching')}>
          {choices.map((hit) => (
            <li key={hit.id}>
              <button
                type="button"
                className="small"
                onClick={() => {
                  setNames((n) => ({ ...n, [hit.id]: hit.name }));
                  onChange([...value, hit.id]);
                }}
              >
                {t('keys.add', { name: hit.name })}
              </button>{' '}
              <span className="muted small" translate="no">
                {hit.matched}
              </span>
            </li>
          ))}
        </ul>
      )}
      {q.length > 0 && hits.isSuccess && choices.length === 0 && (
        <p className="muted small">{t('keys.noOtherMatch', { query: q })}</p>
      )}
      {problem !== undefined && <span className="field-error">{problem}</span>}
    </fieldset>
  );
}
