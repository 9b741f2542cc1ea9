/**
 * The asset's files through its agent: browse directories (the path is in the URL, so back and forward
 * work), download, and for roles that may change files: upload, new folder, rename, copy and delete (after
 * a confirmation). Every refusal of the hub is shown as it is: 409 offline, 403 for a path the agent
 * protects or a role that may not read file contents, 413 for a file over the agent's limit.
 */
import { useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import type { FileEntry } from '@svc/protocol';
import { encodeBase64 } from '@svc/sdk';
import { hub } from '../../../api/client';
import { useSession } from '../../../app/session';
import { ConfirmDialog, Dialog } from '../../../components/Dialog';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { RowsTable, type RowsColumn } from '../../../components/RowsTable';
import { formatBytes, formatTime } from '../../../components/units';
import { useT, type I18n } from '../../../i18n/I18nProvider';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';
import { baseName, joinPath, normalizeDir, parentPath, pathCrumbs } from '../file-paths';

type MoveKind = 'rename' | 'copy';

interface PendingMove {
  kind: MoveKind;
  entry: FileEntry;
}

/** Saves bytes the hub sent as a file of the browser's downloads. */
function saveFile(bytes: Uint8Array, name: string, type: string | null): void {
  const blob = new Blob([bytes.slice()], { type: type ?? 'application/octet-stream' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the URL by then; it is released after a moment.
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 30_000);
}

function PathDialog({
  title,
  label,
  initial,
  submitLabel,
  withOverwrite,
  run,
  onDone,
  onClose,
}: {
  title: string;
  label: string;
  initial: string;
  submitLabel: string;
  withOverwrite: boolean;
  run: (value: string, overwrite: boolean) => Promise<string>;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const { t } = useT();
  const [value, setValue] = useState(initial);
  const [overwrite, setOverwrite] = useState(false);
  const action = useMutation({
    mutationFn: (input: { value: string; overwrite: boolean }) => run(input.value, input.overwrite),
    onSuccess: (message) => {
      onDone(message);
    },
  });
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    action.mutate({ value: value.trim(), overwrite });
  };
  return (
    <Dialog open title={title} onClose={onClose}>
      <form className="asset-form" onSubmit={submit}>
        <label>
          {label}
          <input
            value={value}
            onChange={(e) => {
              setValue(e.target.value);
            }}
            required
            autoFocus
          />
        </label>
        {withOverwrite && (
          <label className="checkbox">
            <input
              type="checkbox"
              checked={overwrite}
              onChange={(e) => {
                setOverwrite(e.target.checked);
              }}
            />
            {t('assetTabs.replaceThere')}
          </label>
        )}
        {action.isError && <ErrorNotice error={action.error} />}
        <div className="dialog-actions">
          <button type="button" onClick={onClose} disabled={action.isPending}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="primary" disabled={action.isPending || value.trim() === ''}>
            {action.isPending ? t('common.working') : submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function DeleteDialog({
  assetId,
  path,
  entry,
  onDone,
  onClose,
}: {
  assetId: string;
  path: string;
  entry: FileEntry | null;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const { t, rich } = useT();
  const [recursive, setRecursive] = useState(false);
  const remove = useMutation({
    mutationFn: async (input: { path: string; recursive: boolean }) =>
      (await hub.call('files.delete', { params: { id: assetId }, query: input })).data,
    onSuccess: (result) => {
      onDone(t('assetTabs.deleted', { path: result.path }));
    },
  });
  const target = entry ? joinPath(path, entry.name) : '';
  const isDirectory = entry?.type === 'directory';
  return (
    <ConfirmDialog
      open={entry !== null}
      title={t('assetTabs.deleteTitle', { name: entry?.name ?? '' })}
      confirmLabel={t('assetTabs.deleteConfirm', { kind: isDirectory ? 'folder' : 'file' })}
      busy={remove.isPending}
      onConfirm={() => {
        remove.mutate({ path: target, recursive });
      }}
      onClose={() => {
        remove.reset();
        setRecursive(false);
        onClose();
      }}
    >
      <p>{rich('assetTabs.deleteText', { path: <code className="break">{target}</code> })}</p>
      {isDirectory && (
        <label className="checkbox">
          <input
            type="checkbox"
            checked={recursive}
            onChange={(e) => {
              setRecursive(e.target.checked);
            }}
          />
          {t('assetTabs.deleteInside')}
        </label>
      )}
      {remove.isError && <ErrorNotice error={remove.error} />}
    </ConfirmDialog>
  );
}

function Uploader({
  assetId,
  dir,
  onDone,
}: {
  assetId: string;
  dir: string;
  onDone: (message: string) => void;
}) {
  const { t } = useT();
  const input = useRef<HTMLInputElement>(null);
  const [overwrite, setOverwrite] = useState(false);
  const upload = useMutation({
    mutationFn: async (files: File[]) => {
      const written: string[] = [];
      // One after another: each is up to 8 MiB in one request, and a refusal stops the rest.
      for (const file of files) {
        const bytes = new Uint8Array(await file.arrayBuffer());
        const result = await hub.call('files.write', {
          params: { id: assetId },
          body: { path: joinPath(dir, file.name), content_base64: encodeBase64(bytes), overwrite },
        });
        written.push(`${result.data.path} (${formatBytes(result.data.size)})`);
      }
      return written;
    },
    onSuccess: (written) => {
      onDone(t('assetTabs.uploaded', { files: written.join(', ') }));
    },
    onSettled: () => {
      if (input.current) input.current.value = '';
    },
  });
  return (
    <div className="uploader">
      <label className="button file-button">
        {upload.isPending ? t('assetTabs.uploading') : t('assetTabs.uploadFiles')}
        <input
          ref={input}
          type="file"
          multiple
          className="visually-hidden"
          disabled={upload.isPending}
          onChange={(e) => {
            const files = [...(e.target.files ?? [])];
            if (files.length > 0) upload.mutate(files);
          }}
        />
      </label>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={overwrite}
          onChange={(e) => {
            setOverwrite(e.target.checked);
          }}
        />
        {t('assetTabs.replaceFiles')}
      </label>
      {upload.isError && <ErrorNotice error={upload.error} />}
    </div>
  );
}

function entryColumns(t: I18n['t'], dir: string, open: (path: string) => void): RowsColumn<FileEntry>[] {
  return [
    {
      key: 'name',
      label: t('assetTabs.name'),
      cell: (e) =>
        e.type === 'directory' ? (
          <button
            type="button"
            className="link-button"
            translate="no"
            onClick={() => {
              open(joinPath(dir, e.name));
            }}
          >
            {e.name}
            <span aria-hidden="true">/</span>
          </button>
        ) : (
          <span>
            <span translate="no">{e.name}</span>
            {e.type === 'symlink' && <span className="muted small"> {t('assetTabs.link')}</span>}
          </span>
        ),
      // Folders first, then by name.
      sortValue: (e) => `${e.type === 'directory' ? 0 : 1}${e.name}`,
      className: 'cell-wide',
    },
    {
      key: 'size',
      label: t('assetTabs.size'),
      cell: (e) => (e.type === 'directory' ? '—' : <span translate="no">{formatBytes(e.size)}</span>),
      sortValue: (e) => e.size,
      className: 'cell-number',
    },
    {
      key: 'modified',
      label: t('assetTabs.modified'),
      cell: (e) => (e.modified_at ? <time dateTime={e.modified_at}>{formatTime(e.modified_at)}</time> : '—'),
      sortValue: (e) => e.modified_at ?? '',
    },
    { key: 'mode', label: t('assetTabs.mode'), cell: (e) => <code>{e.mode}</code> },
  ];
}

export function FilesTab({ asset }: AssetTabProps) {
  const { t } = useT();
  const { canMutate } = useSession();
  const client = useQueryClient();
  const [params, setParams] = useSearchParams();
  const dir = normalizeDir(params.get('path') ?? '/');
  const [typed, setTyped] = useState(dir);
  useEffect(() => {
    setTyped(dir);
  }, [dir]);
  const [message, setMessage] = useState<string | null>(null);
  const [moving, setMoving] = useState<PendingMove | null>(null);
  const [making, setMaking] = useState(false);
  const [deleting, setDeleting] = useState<FileEntry | null>(null);
  const listKey = assetPartKey(asset.id, 'files', dir);
  const listing = useQuery({
    queryKey: listKey,
    queryFn: async () =>
      (await hub.call('files.list', { params: { id: asset.id }, query: { path: dir } })).data,
  });
  const download = useMutation({
    mutationFn: async (path: string) => {
      const file = await hub.download('files.read', { params: { id: asset.id }, query: { path } });
      saveFile(file.bytes, file.filename ?? baseName(path), file.contentType);
      return path;
    },
  });

  const open = (path: string) => {
    setMessage(null);
    setTyped(path);
    setParams(
      (previous) => {
        const next = new URLSearchParams(previous);
        next.set('path', path);
        return next;
      },
      { replace: false },
    );
  };
  const changed = async (text: string) => {
    setMessage(text);
    setMoving(null);
    setMaking(false);
    setDeleting(null);
    await client.invalidateQueries({ queryKey: assetPartKey(asset.id, 'files') });
  };

  return (
    <div className="files">
      <nav className="crumbs" aria-label={t('assetTabs.folder')}>
        <ol>
          {pathCrumbs(dir).map((crumb, index, all) => (
            <li key={crumb.path} translate="no">
              {index === all.length - 1 ? (
                <span aria-current="location">{crumb.name}</span>
              ) : (
                <Link
                  to={`/assets/${encodeURIComponent(asset.id)}/files?path=${encodeURIComponent(crumb.path)}`}
                >
                  {crumb.name}
                </Link>
              )}
            </li>
          ))}
        </ol>
      </nav>
      <div className="files-toolbar">
        <form
          className="path-form"
          onSubmit={(e) => {
            e.preventDefault();
            open(normalizeDir(typed));
          }}
        >
          <label>
            <span className="visually-hidden">{t('assetTabs.folderPath')}</span>
            <input
              value={typed}
              onChange={(e) => {
                setTyped(e.target.value);
              }}
            />
          </label>
          <button type="submit">{t('assetTabs.go')}</button>
          <button
            type="button"
            disabled={dir === '/'}
            onClick={() => {
              open(parentPath(dir));
            }}
          >
            {t('assetTabs.up')}
          </button>
        </form>
        {canMutate && (
          <>
            <button
              type="button"
              onClick={() => {
                setMaking(true);
              }}
            >
              {t('assetTabs.newFolder')}
            </button>
            <Uploader assetId={asset.id} dir={dir} onDone={(text) => void changed(text)} />
          </>
        )}
      </div>
      {message && (
        <p className="notice ok" role="status">
          {message}
        </p>
      )}
      {download.isError && <ErrorNotice error={download.error} />}
      <AgentAnswer query={listing} what="folder">
        {(data) => (
          <>
            {data.truncated && <p className="muted small">{t('assetTabs.truncatedFolder')}</p>}
            <RowsTable
              label={t('assetTabs.filesIn', { path: data.path })}
              rows={data.entries}
              columns={entryColumns(t, dir, open)}
              rowKey={(e) => e.name}
              filterText={(e) => e.name}
              initialSort={{ key: 'name', descending: false }}
              emptyTitle={t('assetTabs.emptyFolder')}
              actions={(e) => (
                <span className="row-buttons">
                  {e.type !== 'directory' && (
                    <button
                      type="button"
                      className="small"
                      aria-label={t('assetTabs.downloadNamed', { name: e.name })}
                      disabled={download.isPending}
                      onClick={() => {
                        download.reset();
                        download.mutate(joinPath(dir, e.name));
                      }}
                    >
                      {t('assetTabs.download')}
                    </button>
                  )}
                  {canMutate && (
                    <>
                      <button
                        type="button"
                        className="small"
                        aria-label={t('assetTabs.renameNamed', { name: e.name })}
                        onClick={() => {
                          setMoving({ kind: 'rename', entry: e });
                        }}
                      >
                        {t('assetTabs.rename')}
                      </button>
                      <button
                        type="button"
                        className="small"
                        aria-label={t('assetTabs.copyNamed', { name: e.name })}
                        onClick={() => {
                          setMoving({ kind: 'copy', entry: e });
                        }}
                      >
                        {t('assetTabs.copy')}
                      </button>
                      <button
                        type="button"
                        className="small danger"
                        aria-label={t('common.deleteNamed', { name: e.name })}
                        onClick={() => {
                          setDeleting(e);
                        }}
                      >
                        {t('common.delete')}
                      </button>
                    </>
                  )}
                </span>
              )}
            />
          </>
        )}
      </AgentAnswer>
      {making && (
        <PathDialog
          title={t('assetTabs.newFolder')}
          label={t('assetTabs.nameIn', { dir })}
          initial=""
          submitLabel={t('assetTabs.createFolder')}
          withOverwrite={false}
          run={async (name) => {
            const made = await hub.call('files.mkdir', {
              params: { id: asset.id },
              body: { path: name.startsWith('/') ? name : joinPath(dir, name) },
            });
            return t('assetTabs.created', { path: made.data.path });
          }}
          onDone={(text) => void changed(text)}
          onClose={() => {
            setMaking(false);
          }}
        />
      )}
      {moving && (
        <PathDialog
          title={t('assetTabs.moveTitle', { kind: moving.kind, name: moving.entry.name })}
          label={t('assetTabs.moveTo')}
          initial={joinPath(dir, moving.entry.name)}
          submitLabel={t(moving.kind === 'rename' ? 'assetTabs.rename' : 'assetTabs.copy')}
          withOverwrite
          run={async (to, overwrite) => {
            const body = { from: joinPath(dir, moving.entry.name), to, overwrite };
            const result =
              moving.kind === 'rename'
                ? await hub.call('files.rename', { params: { id: asset.id }, body })
                : await hub.call('files.copy', { params: { id: asset.id }, body });
            return t('assetTabs.moved', { kind: moving.kind, from: result.data.from, to: result.data.to });
          }}
          onDone={(text) => void changed(text)}
          onClose={() => {
            setMoving(null);
          }}
        />
      )}
      {canMutate && (
        <DeleteDialog
          assetId={asset.id}
          path={dir}
          entry={deleting}
          onDone={(text) => void changed(text)}
          onClose={() => {
            setDeleting(null);
          }}
        />
      )}
    </div>
  );
}
