/**
 * Saved filters of the assets list (decision 0096): the caller's own, kept in the hub so they follow them to
 * another browser. Each is a button that applies it in one click; the current filter set is saved under a
 * name; renames and deletes are under "Manage".
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { savedFilterLimits, type SavedFilter, type SavedFilterCriteria } from '@svc/protocol';
import { hub } from '../../api/client';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { FormDialog } from '../../components/FormDialog';
import { TextField } from '../../components/TextField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';

const savedFiltersKey = ['asset-filters', 'list'] as const;

/** Whether two filter sets filter the same way (the order of their fields aside). */
function sameCriteria(a: SavedFilterCriteria, b: SavedFilterCriteria): boolean {
  const fields = ['q', 'status', 'platform', 'group', 'sort'] as const;
  return fields.every((field) => a[field] === b[field]);
}

function NameDialog({
  title,
  submitLabel,
  initial,
  save,
  onClose,
}: {
  title: string;
  submitLabel: string;
  initial: string;
  save: (name: string) => Promise<unknown>;
  onClose: () => void;
}) {
  const { t } = useT();
  const [name, setName] = useState(initial);
  const mutation = useResourceMutation({
    mutationFn: save,
    invalidates: [savedFiltersKey],
    onSuccess: onClose,
  });
  return (
    <FormDialog
      title={title}
      mutation={mutation}
      submitLabel={submitLabel}
      canSubmit={name.trim() !== ''}
      className="saved-filter-form"
      onSubmit={() => {
        mutation.mutate(name.trim());
      }}
      onClose={onClose}
    >
      <TextField
        label={t('assets.savedFilterName')}
        problem={mutation.problems.name}
        value={name}
        onChange={setName}
        maxLength={savedFilterLimits.nameLength}
        autoFocus
        required
      />
    </FormDialog>
  );
}

export function SavedFilters({
  current,
  onApply,
}: {
  current: SavedFilterCriteria;
  onApply: (criteria: SavedFilterCriteria) => void;
}) {
  const { t } = useT();
  const saved = useQuery({
    queryKey: savedFiltersKey,
    queryFn: async () =>
      (await hub.call('filters.list', { query: { per_page: savedFilterLimits.perOwner } })).data,
    staleTime: 30_000,
  });
  const [saving, setSaving] = useState(false);
  const [renaming, setRenaming] = useState<SavedFilter | null>(null);
  const [deleting, setDeleting] = useState<SavedFilter | null>(null);
  const remove = useResourceMutation({
    mutationFn: async (filter: SavedFilter) =>
      (await hub.call('filters.delete', { params: { id: filter.id } })).data,
    invalidates: [savedFiltersKey],
    onSuccess: () => {
      setDeleting(null);
    },
  });
  const filters = saved.data ?? [];
  return (
    <div className="saved-filters">
      <span id="saved-filters-label" className="saved-filters-label">
        {t('assets.savedFilters')}
      </span>
      {saved.isError && <ErrorNotice error={saved.error} retry={() => void saved.refetch()} />}
      {saved.isSuccess && filters.length === 0 && <span className="muted">{t('assets.noSavedFilters')}</span>}
      {filters.length > 0 && (
        <ul className="saved-filter-list" aria-labelledby="saved-filters-label">
          {filters.map((filter) => (
            <li key={filter.id}>
              <button
                type="button"
                className="small saved-filter"
                aria-pressed={sameCriteria(filter.criteria, current)}
                title={filter.name}
                translate="no"
                onClick={() => {
                  onApply(filter.criteria);
                }}
              >
                {filter.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      <button
        type="button"
        className="small"
        onClick={() => {
          setSaving(true);
        }}
      >
        {t('assets.saveFilter')}
      </button>
      {filters.length > 0 && (
        <details className="saved-filters-manage">
          <summary>{t('assets.manageFilters')}</summary>
          <ul>
            {filters.map((filter) => (
              <li key={filter.id}>
                <span className="saved-filter-name" title={filter.name} translate="no">
                  {filter.name}
                </span>
                <button
                  type="button"
                  className="small"
                  aria-label={t('assets.renameFilterNamed', { name: filter.name })}
                  onClick={() => {
                    setRenaming(filter);
                  }}
                >
                  {t('assets.renameFilter')}
                </button>
                <button
                  type="button"
                  className="small danger"
                  aria-label={t('common.deleteNamed', { name: filter.name })}
                  onClick={() => {
                    setDeleting(filter);
                  }}
                >
                  {t('common.delete')}
                </button>
              </li>
            ))}
          </ul>
        </details>
      )}
      {saving && (
        <NameDialog
          title={t('assets.saveFilterTitle')}
          submitLabel={t('assets.saveFilterConfirm')}
          initial=""
          save={async (name) =>
            (await hub.call('filters.create', { body: { name, criteria: current } })).data
          }
          onClose={() => {
            setSaving(false);
          }}
        />
      )}
      {renaming && (
        <NameDialog
          title={t('assets.renameFilterNamed', { name: renaming.name })}
          submitLabel={t('assets.renameFilter')}
          initial={renaming.name}
          save={async (name) =>
            (await hub.call('filters.update', { params: { id: renaming.id }, body: { name } })).data
          }
          onClose={() => {
            setRenaming(null);
          }}
        />
      )}
      <ConfirmMutationDialog
        record={deleting}
        title={(filter) => t('assets.deleteFilterTitle', { name: filter.name })}
        confirmLabel={t('assets.deleteFilterConfirm')}
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {() => <p>{t('assets.deleteFilterText')}</p>}
      </ConfirmMutationDialog>
    </div>
  );
}
