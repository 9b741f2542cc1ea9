/**
 * API keys: the list (prefix only: the hub keeps no raw key), create, edit and revoke. A new key's raw text
 * is shown once, in a dialog with a copy button, and is gone from the page when the dialog closes.
 */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ApiKey, ApiKeyCreated } from '@svc/protocol';
import { hub } from '../../api/client';
import { CopyField } from '../../components/CopyButton';
import { Dialog } from '../../components/Dialog';
import { EmptyState } from '../../components/EmptyState';
import { Time } from '../../components/Time';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { PageHeader } from '../../components/PageHeader';
import { PagedQueryStates } from '../../components/QueryStates';
import { useT } from '../../i18n/I18nProvider';
import { isExpired } from './expiry';
import { KeyFormDialog } from './KeyFormDialog';
import { hasEverything, scopeSummary } from './scope-selection';

const perPage = 50;

type Editing = { mode: 'create' } | { mode: 'edit'; key: ApiKey };

function RawKeyDialog({ created, onClose }: { created: ApiKeyCreated; onClose: () => void }) {
  const { t, rich } = useT();
  return (
    <Dialog open title={t('keys.createdTitle', { name: created.name })} onClose={onClose}>
      <div className="dialog-body stack-form">
        <p className="notice warning" role="note">
          {t('keys.copyNow')}
        </p>
        <CopyField label={t('keys.rawLabel')} value={created.raw_key} />
        <p className="muted small">{rich('keys.sendAs', { header: <code>Authorization: Bearer …</code> })}</p>
      </div>
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onClose}>
          {t('keys.copied')}
        </button>
      </div>
    </Dialog>
  );
}

function KeyRow({ apiKey, onEdit, onRevoke }: { apiKey: ApiKey; onEdit: () => void; onRevoke: () => void }) {
  const { t } = useT();
  const expired = isExpired(apiKey.expires_at);
  return (
    <tr>
      <th scope="row" translate="no">
        {apiKey.name}
      </th>
      <td>
        <code>svc_{apiKey.prefix}_…</code>
      </td>
      <td>{t('role.name', { role: apiKey.role })}</td>
      <td className="wrap" title={apiKey.scopes.join(' ')}>
        {hasEverything(apiKey.scopes) ? (
          t('keys.everything')
        ) : (
          <span translate="no">{scopeSummary(apiKey.scopes)}</span>
        )}
      </td>
      <td>
        {apiKey.allowed_assets.length === 0
          ? t('keys.assetsAll')
          : t('keys.assetsSome', { n: apiKey.allowed_assets.length })}
      </td>
      <td className={expired ? 'bad' : undefined}>
        {expired ? `${t('keys.expired')} ` : ''}
        <Time value={apiKey.expires_at} empty={t('time.never')} />
      </td>
      <td>
        <Time value={apiKey.last_used_at} empty={t('time.never')} />
      </td>
      <td>
        <Time value={apiKey.created_at} />
      </td>
      <td className="cell-actions">
        <button
          type="button"
          className="small"
          onClick={onEdit}
          aria-label={t('common.editNamed', { name: apiKey.name })}
        >
          {t('common.edit')}
        </button>
        <button
          type="button"
          className="small danger"
          onClick={onRevoke}
          aria-label={t('keys.revokeNamed', { name: apiKey.name })}
        >
          {t('keys.revoke')}
        </button>
      </td>
    </tr>
  );
}

export function KeysPage() {
  const { t, rich } = useT();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const keys = useQuery({
    queryKey: ['keys', 'list', page],
    queryFn: () => hub.call('keys.list', { query: { page, per_page: perPage } }),
    placeholderData: keepPreviousData,
  });
  const revoke = useResourceMutation({
    mutationFn: async (key: ApiKey) => (await hub.call('keys.revoke', { params: { id: key.id } })).data,
    invalidates: [['keys']],
    onSuccess: () => {
      setRevoking(null);
    },
  });

  return (
    <section className="page" aria-labelledby="keys-title">
      <PageHeader
        titleId="keys-title"
        title={t('keys.title')}
        action={{
          label: t('keys.create'),
          onClick: () => {
            setEditing({ mode: 'create' });
          },
        }}
      />
      <p className="muted">{rich('keys.intro', { path: <code>/api/v2</code> })}</p>
      <PagedQueryStates
        query={keys}
        loadingLabel={t('keys.loading')}
        empty={
          <EmptyState title={t('keys.none')}>
            <p>{t('keys.noneText')}</p>
          </EmptyState>
        }
        page={page}
        perPage={perPage}
        onPage={setPage}
      >
        {(rows) => (
          <div className="table-wrap">
            <table className="data-table admin-table">
              <caption className="visually-hidden">{t('keys.title')}</caption>
              <thead>
                <tr>
                  {(
                    ['name', 'key', 'role', 'scopes', 'assets', 'expires', 'lastUsed', 'created'] as const
                  ).map((column) => (
                    <th key={column} scope="col">
                      {t('keys.column', { column })}
                    </th>
                  ))}
                  <th scope="col">
                    <span className="visually-hidden">{t('common.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((key) => (
                  <KeyRow
                    key={key.id}
                    apiKey={key}
                    onEdit={() => {
                      setEditing({ mode: 'edit', key });
                    }}
                    onRevoke={() => {
                      revoke.reset();
                      setRevoking(key);
                    }}
                  />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </PagedQueryStates>
      {editing && (
        <KeyFormDialog
          key={editing.mode === 'edit' ? editing.key.id : 'new'}
          open
          apiKey={editing.mode === 'edit' ? editing.key : null}
          onClose={() => {
            setEditing(null);
          }}
          onCreated={setCreated}
        />
      )}
      {created && (
        <RawKeyDialog
          created={created}
          onClose={() => {
            setCreated(null);
          }}
        />
      )}
      <ConfirmMutationDialog
        record={revoking}
        title={(record) => t('keys.revokeTitle', { name: record.name })}
        confirmLabel={t('keys.revokeConfirm')}
        mutation={revoke}
        onClose={() => {
          setRevoking(null);
        }}
      >
        {(record) => <p>{rich('keys.revokeText', { prefix: <code>svc_{record.prefix}_…</code> })}</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
