/**
 * One group: rename, delete (its assets stay), run a command on it, and its members — added with the asset
 * picker, removed one by one. Members are shown a page at a time, each looked up by id, so a group of
 * 10,000 assets costs one page of calls.
 */
import { useState } from 'react';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import type { Group } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { AssetPicker } from '../../components/AssetPicker';
import { ConfirmDialog } from '../../components/Dialog';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { StatusBadge } from '../assets/StatusBadge';
import { BulkServiceForm } from '../bulk/BulkServiceForm';
import { groupKey } from './group-keys';
import { GroupFormDialog } from './GroupFormDialog';
import { MaintenanceNotice } from '../maintenance/MaintenanceNotice';

const membersPerPage = 50;

function useSetMembers(group: Group) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (assetIds: string[]) =>
      (await hub.call('groups.update', { params: { id: group.id }, body: { asset_ids: assetIds } })).data,
    onSuccess: async (saved) => {
      client.setQueryData(groupKey(group.id), saved);
      await client.invalidateQueries({ queryKey: ['groups', 'list'] });
    },
  });
}

function Members({ group, canMutate }: { group: Group; canMutate: boolean }) {
  const [page, setPage] = useState(0);
  const setMembers = useSetMembers(group);
  const pages = Math.max(1, Math.ceil(group.asset_ids.length / membersPerPage));
  const current = Math.min(page, pages - 1);
  const shown = group.asset_ids.slice(current * membersPerPage, (current + 1) * membersPerPage);
  const assets = useQueries({
    queries: shown.map((id) => ({
      queryKey: ['assets', 'detail', id],
      queryFn: async () => (await hub.call('assets.get', { params: { id } })).data,
      staleTime: 30_000,
    })),
  });
  return (
    <section className="panel" aria-labelledby="members-title">
      <h2 id="members-title">Members ({group.asset_ids.length})</h2>
      {canMutate && (
        <AssetPicker
          label="Add an asset to the group"
          picked={new Set(group.asset_ids)}
          disabled={setMembers.isPending}
          onPick={(asset) => {
            setMembers.mutate([...group.asset_ids, asset.id]);
          }}
        />
      )}
      {setMembers.isError && <ErrorNotice error={setMembers.error} />}
      {group.asset_ids.length === 0 ? (
        <EmptyState title="No assets in this group yet" />
      ) : (
        <table className="data-table members-table" aria-label="Members">
          <thead>
            <tr>
              <th scope="col">Asset</th>
              <th scope="col">Status</th>
              <th scope="col">Platform</th>
              {canMutate && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {shown.map((id, index) => {
              const answer = assets[index];
              const asset = answer?.data;
              return (
                <tr key={id}>
                  <th scope="row">
                    <Link to={`/assets/${encodeURIComponent(id)}`}>{asset?.name ?? id}</Link>
                  </th>
                  <td>
                    {asset ? (
                      <StatusBadge status={asset.status} />
                    ) : answer?.isError ? (
                      <span className="muted">not visible</span>
                    ) : (
                      <span className="skeleton" />
                    )}
                  </td>
                  <td>{asset?.platform ?? ''}</td>
                  {canMutate && (
                    <td className="cell-actions">
                      <button
                        type="button"
                        className="small"
                        disabled={setMembers.isPending}
                        aria-label={`Remove ${asset?.name ?? id} from the group`}
                        onClick={() => {
                          setMembers.mutate(group.asset_ids.filter((x) => x !== id));
                        }}
                      >
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {pages > 1 && (
        <nav className="pager" aria-label="Member pages">
          <button
            type="button"
            disabled={current === 0}
            onClick={() => {
              setPage(current - 1);
            }}
          >
            Previous
          </button>
          <span>
            Page {current + 1} of {pages}
          </span>
          <button
            type="button"
            disabled={current >= pages - 1}
            onClick={() => {
              setPage(current + 1);
            }}
          >
            Next
          </button>
        </nav>
      )}
    </section>
  );
}

export function GroupPage() {
  const { id = '' } = useParams();
  const { canMutate } = useSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const group = useQuery({
    queryKey: groupKey(id),
    queryFn: async () => (await hub.call('groups.get', { params: { id } })).data,
  });
  const remove = useMutation({
    mutationFn: async () => (await hub.call('groups.delete', { params: { id } })).data,
    onSuccess: async () => {
      setDeleting(false);
      client.removeQueries({ queryKey: groupKey(id) });
      await client.invalidateQueries({ queryKey: ['groups'] });
      await client.invalidateQueries({ queryKey: ['status'] });
      void navigate('/groups');
    },
  });
  if (group.isPending) return <Loading label="Loading the group" />;
  if (group.isError) return <ErrorNotice error={group.error} retry={() => void group.refetch()} />;
  const g = group.data;
  return (
    <section className="page" aria-labelledby="group-title">
      <p className="breadcrumbs">
        <Link to="/groups">Groups</Link> /
      </p>
      <MaintenanceNotice assetIds={g.asset_ids} label="members of this group are in a maintenance window" />
      <div className="page-header">
        <h1 id="group-title">{g.name}</h1>
        {canMutate && (
          <div className="page-actions">
            <Link className="button" to={`/run?group=${encodeURIComponent(g.id)}`}>
              Run a command
            </Link>
            <button
              type="button"
              onClick={() => {
                setEditing(true);
              }}
            >
              Rename
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => {
                setDeleting(true);
              }}
            >
              Delete
            </button>
          </div>
        )}
      </div>
      {g.description && <p className="description">{g.description}</p>}
      <Members group={g} canMutate={canMutate} />
      {canMutate && <BulkServiceForm group={g} />}
      {editing && (
        <GroupFormDialog
          group={g}
          onClose={() => {
            setEditing(false);
          }}
        />
      )}
      <ConfirmDialog
        open={deleting}
        title={`Delete the group ${g.name}?`}
        confirmLabel="Delete group"
        busy={remove.isPending}
        onConfirm={() => {
          remove.mutate();
        }}
        onClose={() => {
          setDeleting(false);
          remove.reset();
        }}
      >
        <p>The group goes; its {g.asset_ids.length} assets stay, as they are.</p>
        {remove.isError && <ErrorNotice error={remove.error} />}
      </ConfirmDialog>
    </section>
  );
}
