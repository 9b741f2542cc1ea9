/**
 * Bookmarks beside the terminal (decision 0091): an asset and a working directory, the caller's own. Open
 * starts a new terminal tab on the asset and types `cd` into the directory once its shell prints.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Bookmark } from '@svc/protocol';
import { hub } from '../../api/client';
import { useAssetName } from '../../components/use-asset-name';
import { AssetPicker, type PickedAsset } from '../../components/AssetPicker';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { FormDialog } from '../../components/FormDialog';
import { TextField } from '../../components/TextField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';

const bookmarksKey = ['terminal-bookmarks'] as const;

function BookmarkForm({ asset, onClose }: { asset: PickedAsset | null; onClose: () => void }) {
  const { t, rich } = useT();
  const [picked, setPicked] = useState<PickedAsset | null>(asset);
  const [directory, setDirectory] = useState('');
  const [name, setName] = useState('');
  const save = useResourceMutation({
    mutationFn: async () =>
      (
        await hub.call('bookmarks.create', {
          body: { asset_id: picked?.id ?? '', directory, name: name === '' ? null : name },
        })
      ).data,
    invalidates: [bookmarksKey],
    onSuccess: onClose,
  });
  return (
    <FormDialog
      title={t('sessions.newBookmark')}
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onClose={onClose}
      submitLabel={t('sessions.createBookmark')}
      canSubmit={picked !== null}
    >
      {picked ? (
        <p>
          {rich('sessions.bookmarkAsset', { name: <strong translate="no">{picked.name}</strong> })}{' '}
          <button
            type="button"
            className="small"
            onClick={() => {
              setPicked(null);
            }}
          >
            {t('sessions.changeAsset')}
          </button>
        </p>
      ) : (
        <AssetPicker label={t('sessions.asset')} picked={new Set()} onPick={setPicked} />
      )}
      {save.problems.asset_id && <p className="field-error">{save.problems.asset_id}</p>}
      <TextField
        label={t('sessions.directory')}
        hint={t('sessions.directoryHint')}
        value={directory}
        onChange={setDirectory}
        problem={save.problems.directory}
        placeholder="/var/www"
        // The example path is data, as the directory typed in is.
        translate="no"
        spellCheck={false}
        autoFocus={picked !== null}
        required
      />
      <TextField
        label={t('sessions.optionalName')}
        value={name}
        onChange={setName}
        problem={save.problems.name}
      />
    </FormDialog>
  );
}

function BookmarkLabel({ bookmark }: { bookmark: Bookmark }) {
  const assetName = useAssetName(bookmark.asset_id);
  return (
    <div translate="no">
      <strong>{bookmark.name ?? bookmark.directory}</strong>
      <div className="muted">
        {assetName}: <code>{bookmark.directory}</code>
      </div>
    </div>
  );
}

export function BookmarksPanel({
  currentAsset,
  onOpen,
  opening,
}: {
  /** The shown terminal's asset, offered first for a new bookmark. */
  currentAsset: PickedAsset | null;
  onOpen: (bookmark: Bookmark) => void;
  opening: boolean;
}) {
  const { t } = useT();
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Bookmark | null>(null);
  const bookmarks = useQuery({
    queryKey: bookmarksKey,
    queryFn: async () => (await hub.call('bookmarks.list', { query: { per_page: 500 } })).data,
  });
  const remove = useResourceMutation({
    mutationFn: async (bookmark: Bookmark) =>
      (await hub.call('bookmarks.delete', { params: { id: bookmark.id } })).data,
    invalidates: [bookmarksKey],
    onSuccess: () => {
      setDeleting(null);
    },
  });
  return (
    <section className="terminal-side-panel" aria-labelledby="bookmarks-title">
      <div className="panel-header">
        <h2 id="bookmarks-title">{t('sessions.bookmarks')}</h2>
        <button
          type="button"
          className="small"
          onClick={() => {
            setAdding(true);
          }}
        >
          {t('sessions.newBookmark')}
        </button>
      </div>
      {bookmarks.isError && <ErrorNotice error={bookmarks.error} />}
      {bookmarks.data?.length === 0 && <p className="muted">{t('sessions.noBookmarks')}</p>}
      <ul className="terminal-side-list" aria-label={t('sessions.bookmarks')}>
        {bookmarks.data?.map((bookmark) => {
          const label = bookmark.name ?? bookmark.directory;
          return (
            <li key={bookmark.id}>
              <BookmarkLabel bookmark={bookmark} />
              <div className="terminal-side-actions">
                <button
                  type="button"
                  className="small"
                  aria-label={t('sessions.openNamed', { name: label })}
                  disabled={opening}
                  onClick={() => {
                    onOpen(bookmark);
                  }}
                >
                  {t('sessions.open')}
                </button>
                <button
                  type="button"
                  className="small danger"
                  aria-label={t('sessions.deleteBookmarkNamed', { name: label })}
                  onClick={() => {
                    setDeleting(bookmark);
                  }}
                >
                  {t('common.delete')}
                </button>
              </div>
            </li>
          );
        })}
      </ul>
      {adding && (
        <BookmarkForm
          asset={currentAsset}
          onClose={() => {
            setAdding(false);
          }}
        />
      )}
      <ConfirmMutationDialog
        record={deleting}
        title={(b) => t('sessions.deleteBookmarkTitle', { name: b.name ?? b.directory })}
        confirmLabel={t('sessions.deleteBookmark')}
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {() => <p>{t('sessions.deleteBookmarkText')}</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
