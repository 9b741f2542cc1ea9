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
import { useT } from '../../i18n/I18nProvider';
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
  const { t } = useT();
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
      <h2 id="members-title">{t('groups.members', { n: group.asset_ids.length })}</h2>
      {canMutate && (
        <AssetPicker
          label={t('groups.addMember')}
          picked={new Set(group.asset_ids)}
          disabled={setMembers.isPending}
          onPick={(asset) => {
            setMembers.mutate([...group.asset_ids, asset.id]);
          }}
        />
      )}
      {setMembers.isError && <ErrorNotice error={setMembers.error} />}
      {group.asset_ids.length === 0 ? (
        <EmptyState title={t('groups.noMembers')} />
      ) : (
        <table className="data-table members-table" aria-label={t('groups.membersTable')}>
          <thead>
            <tr>
              <th scope="col">{t('groups.memberColumn', { column: 'asset' })}</th>
              <th scope="col">{t('groups.memberColumn', { column: 'status' })}</th>
              <th scope="col">{t('groups.memberColumn', { column: 'platform' })}</th>
              {canMutate && (
                <th scope="col">
                  <span className="visually-hidden">{t('common.actions')}</span>
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
                  <th scope="row" translate="no">
                    <Link to={`/assets/${encodeURIComponent(id)}`}>{asset?.name ?? id}</Link>
                  </th>
                  <td>
                    {asset ? (
                      <StatusBadge status={asset.status} />
                    ) : answer?.isError ? (
                      <span className="muted">{t('groups.notVisible')}</span>
                    ) : (
                      <span className="skeleton" />
                    )}
                  </td>
                  <td>{asset ? t('asset.platform', { platform: asset.platform }) : ''}</td>
                  {canMutate && (
                    <td className="cell-actions">
                      <button
                        type="button"
                        className="small"
                        disabled={setMembers.isPending}
                        aria-label={t('groups.removeMember', { name: asset?.name ?? id })}
                        onClick={() => {
                          setMembers.mutate(group.asset_ids.filter((x) => x !== id));
                        }}
                      >
                        {t('common.remove')}
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
        <nav className="pager" aria-label={t('groups.memberPages')}>
          <button
            type="button"
            disabled={current === 0}
            onClick={() => {
              setPage(current - 1);
            }}
          >
            {t('pager.previous')}
          </button>
          <span>{t('groups.memberPage', { page: current + 1, pages })}</span>
          <button
            type="button"
            disabled={current >= pages - 1}
            onClick={() => {
              setPage(current + 1);
            }}
          >
            {t('pager.next')}
          </button>
        </nav>
      )}
    </section>
  );
}

export function GroupPage() {
  const { t } = useT();
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
  if (group.isPending) return <Loading label={t('groups.loadingGroup')} />;
  if (group.isError) return <ErrorNotice error={group.error} retry={() => void group.refetch()} />;
  const g = group.data;
  return (
    <section className="page" aria-labelledby="group-title">
      <p className="breadcrumbs">
        <Link to="/groups">{t('groups.title')}</Link> /
      </p>
      <MaintenanceNotice assetIds={g.asset_ids} label={t('groups.inMaintenance')} />
      <div className="page-header">
        <h1 id="group-title" translate="no">
          {g.name}
        </h1>
        {canMutate && (
          <div className="page-actions">
            <Link className="button" to={`/run?group=${encodeURIComponent(g.id)}`}>
              {t('assetPage.runCommand')}
            </Link>
            <button
              type="button"
              onClick={() => {
                setEditing(true);
              }}
            >
              {t('groups.rename')}
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => {
                setDeleting(true);
              }}
            >
              {t('common.delete')}
            </button>
          </div>
        )}
      </div>
      {g.description && (
        <p className="description" translate="no">
          {g.description}
        </p>
      )}
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
        title={t('groups.deleteTitle', { name: g.name })}
        confirmLabel={t('groups.deleteConfirm')}
        busy={remove.isPending}
        onConfirm={() => {
          remove.mutate();
        }}
        onClose={() => {
          setDeleting(false);
          remove.reset();
        }}
      >
        <p>{t('groups.deleteText', { n: g.asset_ids.length })}</p>
        {remove.isError && <ErrorNotice error={remove.error} />}
      </ConfirmDialog>
    </section>
  );
}
