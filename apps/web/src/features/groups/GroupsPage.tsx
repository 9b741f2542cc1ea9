/** Every group the caller may see: name, description, size; a new group for roles that may change them. */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { EmptyState } from '../../components/EmptyState';
import { QueryStates } from '../../components/QueryStates';
import { PageHeader } from '../../components/PageHeader';
import { Time } from '../../components/Time';
import { useT } from '../../i18n/I18nProvider';
import { groupListKey } from './group-keys';
import { GroupFormDialog } from './GroupFormDialog';

export function GroupsPage() {
  const { t } = useT();
  const { canMutate } = useSession();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const groups = useQuery({
    queryKey: groupListKey,
    queryFn: async () => (await hub.call('groups.list', { query: { per_page: 500 } })).data,
  });
  return (
    <section className="page" aria-labelledby="groups-title">
      <PageHeader
        titleId="groups-title"
        title={t('groups.title')}
        count={groups.isSuccess ? t('groups.count', { n: groups.data.length }) : undefined}
        action={
          canMutate && {
            label: t('groups.new'),
            onClick: () => {
              setCreating(true);
            },
          }
        }
      />
      <QueryStates
        query={groups}
        loadingLabel={t('groups.loading')}
        empty={<EmptyState title={t('groups.none')}>{canMutate && <p>{t('groups.noneText')}</p>}</EmptyState>}
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('groups.title')}>
              <thead>
                <tr>
                  <th scope="col">{t('groups.column', { column: 'name' })}</th>
                  <th scope="col">{t('groups.column', { column: 'assets' })}</th>
                  <th scope="col">{t('groups.column', { column: 'description' })}</th>
                  <th scope="col">{t('groups.column', { column: 'changed' })}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((g) => (
                  <tr key={g.id}>
                    <th scope="row" translate="no">
                      <Link to={`/groups/${encodeURIComponent(g.id)}`}>{g.name}</Link>
                    </th>
                    <td className="cell-number">{g.asset_ids.length}</td>
                    <td className="cell-wide" translate="no">
                      {g.description ?? <span className="muted">—</span>}
                    </td>
                    <td>
                      <Time value={g.updated_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      {creating && (
        <GroupFormDialog
          group={null}
          onClose={() => {
            setCreating(false);
          }}
          onSaved={(group) => void navigate(`/groups/${encodeURIComponent(group.id)}`)}
        />
      )}
    </section>
  );
}
