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
import { isExpired } from './expiry';
import { KeyFormDialog } from './KeyFormDialog';
import { scopeSummary } from './scope-selection';

const perPage = 50;

type Editing = { mode: 'create' } | { mode: 'edit'; key: ApiKey };

function RawKeyDialog({ created, onClose }: { created: ApiKeyCreated; onClose: () => void }) {
  return (
    <Dialog open title={`Key ${created.name} created`} onClose={onClose}>
      <div className="dialog-body stack-form">
        <p className="notice warning" role="note">
          Copy the key now: it is shown only this once. The hub keeps only its hash and cannot show it again.
        </p>
        <CopyField label="API key" value={created.raw_key} />
        <p className="muted small">
          Send it as <code>Authorization: Bearer …</code> over HTTPS.
        </p>
      </div>
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onClose}>
          I have copied it
        </button>
      </div>
    </Dialog>
  );
}

function KeyRow({ apiKey, onEdit, onRevoke }: { apiKey: ApiKey; onEdit: () => void; onRevoke: () => void }) {
  const expired = isExpired(apiKey.expires_at);
  return (
    <tr>
      <th scope="row">{apiKey.name}</th>
      <td>
        <code>svc_{apiKey.prefix}_…</code>
      </td>
      <td>{apiKey.role}</td>
      <td className="wrap" title={apiKey.scopes.join(' ')}>
        {scopeSummary(apiKey.scopes)}
      </td>
      <td>{apiKey.allowed_assets.length === 0 ? 'all' : `${apiKey.allowed_assets.length} only`}</td>
      <td className={expired ? 'bad' : undefined}>
        {expired ? 'expired ' : ''}
        <Time value={apiKey.expires_at} empty="never" />
      </td>
      <td>
        <Time value={apiKey.last_used_at} empty="never" />
      </td>
      <td>
        <Time value={apiKey.created_at} />
      </td>
      <td className="cell-actions">
        <button type="button" className="small" onClick={onEdit} aria-label={`Edit ${apiKey.name}`}>
          Edit
        </button>
        <button
          type="button"
          className="small danger"
          onClick={onRevoke}
          aria-label={`Revoke ${apiKey.name}`}
        >
          Revoke
        </button>
      </td>
    </tr>
  );
}

export function KeysPage() {
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
        title="API keys"
        action={{
          label: 'Create key',
          onClick: () => {
            setEditing({ mode: 'create' });
          },
        }}
      />
      <p className="muted">
        Keys call the REST API (<code>/api/v2</code>) with a role, scopes and optionally a list of assets.
        Only their prefix is kept in the clear.
      </p>
      <PagedQueryStates
        query={keys}
        loadingLabel="Loading the keys"
        empty={
          <EmptyState title="No API keys">
            <p>Create one for a script, a CLI or another service.</p>
          </EmptyState>
        }
        page={page}
        perPage={perPage}
        onPage={setPage}
      >
        {(rows) => (
          <div className="table-wrap">
            <table className="data-table admin-table">
              <caption className="visually-hidden">API keys</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Role</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Assets</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
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
        title={(record) => `Revoke the key ${record.name}?`}
        confirmLabel="Revoke key"
        mutation={revoke}
        onClose={() => {
          setRevoking(null);
        }}
      >
        {(record) => (
          <p>
            Every request with <code>svc_{record.prefix}_…</code> is refused from now on, and its event
            streams close. This cannot be undone.
          </p>
        )}
      </ConfirmMutationDialog>
    </section>
  );
}
