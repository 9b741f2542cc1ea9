/**
 * Picks assets by name: type to search (`GET /search?type=asset`), or choose among the first assets when
 * nothing is typed; arrow keys and Enter, or a click, add one. What is picked is the caller's (chips with a
 * remove button, or a group's members).
 */
import { useEffect, useId, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { hub } from '../api/client';
import { useT } from '../i18n/I18nProvider';
import { useDebounced } from './use-debounced';
import { ErrorNotice } from './ErrorNotice';

export interface PickedAsset {
  id: string;
  name: string;
}

const shownOptions = 20;

function useAssetOptions(q: string, enabled: boolean) {
  return useQuery({
    queryKey: ['assets', 'picker', q],
    queryFn: async (): Promise<PickedAsset[]> => {
      if (q === '') {
        const page = await hub.call('assets.list', { query: { per_page: shownOptions } });
        return page.data.map((a) => ({ id: a.id, name: a.name }));
      }
      const hits = await hub.call('search', { query: { q, type: 'asset', per_page: shownOptions } });
      return hits.data.map((h) => ({ id: h.id, name: h.name }));
    },
    enabled,
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  });
}

export function AssetPicker({
  label,
  picked,
  onPick,
  disabled = false,
}: {
  label: string;
  /** Already chosen: not offered again. */
  picked: ReadonlySet<string>;
  onPick: (asset: PickedAsset) => void;
  disabled?: boolean;
}) {
  const { t } = useT();
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const q = useDebounced(text.trim(), 150);
  const listId = useId();
  const inputId = useId();
  const options = useAssetOptions(q, open);
  const choices = (options.data ?? []).filter((a) => !picked.has(a.id));

  useEffect(() => {
    setActive(0);
  }, [q]);

  const pick = (asset: PickedAsset | undefined) => {
    if (!asset) return;
    onPick(asset);
    setText('');
    // Closed after a pick, so the list does not cover what changed; typing or ↓ opens it again.
    setOpen(false);
  };

  return (
    <div className="asset-picker">
      <label htmlFor={inputId}>{label}</label>
      <input
        id={inputId}
        type="search"
        role="combobox"
        autoComplete="off"
        aria-expanded={open && choices.length > 0}
        aria-controls={listId}
        aria-activedescendant={open && choices[active] ? `${listId}-${active}` : undefined}
        placeholder={t('assetPicker.placeholder')}
        value={text}
        disabled={disabled}
        onFocus={() => {
          setOpen(true);
        }}
        onBlur={() => {
          // After a click on an option has been handled.
          setTimeout(() => {
            setOpen(false);
          }, 150);
        }}
        onChange={(event) => {
          setText(event.target.value);
          setOpen(true);
        }}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown') {
            event.preventDefault();
            setOpen(true);
            setActive((i) => Math.min(i + 1, Math.max(0, choices.length - 1)));
          } else if (event.key === 'ArrowUp') {
            event.preventDefault();
            setActive((i) => Math.max(i - 1, 0));
          } else if (event.key === 'Enter') {
            event.preventDefault();
            pick(choices[active]);
          } else if (event.key === 'Escape') {
            setOpen(false);
          }
        }}
      />
      {open && options.isError && <ErrorNotice error={options.error} />}
      {open && (
        <ul
          id={listId}
          role="listbox"
          aria-label={t('assetPicker.matches', { label })}
          className="picker-options"
        >
          {choices.map((asset, index) => (
            <li
              key={asset.id}
              id={`${listId}-${index}`}
              role="option"
              aria-selected={index === active}
              className={index === active ? 'active' : undefined}
              onMouseDown={(event) => {
                event.preventDefault();
                pick(asset);
              }}
            >
              <span translate="no">{asset.name}</span>
            </li>
          ))}
          {options.isSuccess && choices.length === 0 && (
            <li className="muted" role="presentation">
              {q ? t('assetPicker.noOtherMatch', { query: q }) : t('assetPicker.noOthers')}
            </li>
          )}
        </ul>
      )}
    </div>
  );
}
