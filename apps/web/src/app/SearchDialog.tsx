/**
 * Search across assets and groups (`GET /api/v2/search`) from anywhere: Ctrl+K or `/`. Arrow keys move
 * through the results, Enter opens one.
 */
import { useEffect, useId, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { SearchHit } from '@svc/protocol';
import { hub } from '../api/client';
import { useDebounced } from '../components/use-debounced';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { useT } from '../i18n/I18nProvider';

function hitPath(hit: SearchHit): string {
  return hit.type === 'asset'
    ? `/assets/${encodeURIComponent(hit.id)}`
    : `/groups/${encodeURIComponent(hit.id)}`;
}

export function SearchDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t, rich } = useT();
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const q = useDebounced(text.trim(), 150);
  const navigate = useNavigate();
  const listId = useId();
  const results = useQuery({
    queryKey: ['search', q],
    queryFn: async () => (await hub.call('search', { query: { q, per_page: 20 } })).data,
    enabled: open && q.length > 0,
    placeholderData: keepPreviousData,
  });
  const hits = q.length > 0 ? (results.data ?? []) : [];

  useEffect(() => {
    setActive(0);
  }, [q]);

  const close = () => {
    setText('');
    onClose();
  };
  const openHit = (hit: SearchHit | undefined) => {
    if (!hit) return;
    close();
    void navigate(hitPath(hit));
  };

  return (
    <Dialog open={open} title={t('search.title')} onClose={close}>
      <div className="search-dialog">
        <input
          type="search"
          role="combobox"
          aria-label={t('search.title')}
          aria-expanded={hits.length > 0}
          aria-controls={listId}
          aria-activedescendant={hits[active] ? `${listId}-${active}` : undefined}
          placeholder={t('search.placeholder')}
          autoFocus
          value={text}
          onChange={(event) => {
            setText(event.target.value);
          }}
          onKeyDown={(event) => {
            if (event.key === 'ArrowDown') {
              event.preventDefault();
              setActive((i) => Math.min(i + 1, Math.max(0, hits.length - 1)));
            } else if (event.key === 'ArrowUp') {
              event.preventDefault();
              setActive((i) => Math.max(i - 1, 0));
            } else if (event.key === 'Enter') {
              event.preventDefault();
              openHit(hits[active]);
            }
          }}
        />
        {results.isError && <ErrorNotice error={results.error} />}
        <ul id={listId} role="listbox" aria-label={t('search.results')} className="search-results">
          {hits.map((hit, index) => (
            <li
              key={`${hit.type}:${hit.id}`}
              id={`${listId}-${index}`}
              role="option"
              aria-selected={index === active}
              className={index === active ? 'active' : undefined}
              onMouseEnter={() => {
                setActive(index);
              }}
              onClick={() => {
                openHit(hit);
              }}
            >
              <span className="hit-type">{t('search.hitType', { type: hit.type })}</span>{' '}
              <strong translate="no">{hit.name}</strong>
              {hit.matched !== hit.name && (
                <span className="hit-matched" translate="no">
                  {' '}
                  {hit.matched}
                </span>
              )}
            </li>
          ))}
        </ul>
        {q.length > 0 && results.isSuccess && hits.length === 0 && (
          <p className="muted">{t('search.noMatch', { query: q })}</p>
        )}
        <p className="muted small">
          {rich('search.help', {
            up: <kbd>↑</kbd>,
            down: <kbd>↓</kbd>,
            enter: <kbd>Enter</kbd>,
            esc: <kbd>Esc</kbd>,
          })}
        </p>
      </div>
    </Dialog>
  );
}
