/** Every group the caller may see: name, description, size; a new group for roles that may change them. */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { EmptyState } from '../../components/EmptyState';
import { formatTime } from '../../components/units';
import { QueryStates } from '../../components/QueryStates';
import { PageHeader } from '../../components/PageHeader';
import { groupListKey } from './group-keys';
import { GroupFormDialog } from './GroupFormDialog';

export function GroupsPage() {
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
        title="Groups"
        count={groups.isSuccess ? { n: groups.data.length, noun: 'group' } : undefined}
        action={
          canMutate && {
            label: 'New group',
            onClick: () => {
              setCreating(true);
            },
          }
        }
      />
      <QueryStates
        query={groups}
        loadingLabel="Loading groups"
        empty={
          <EmptyState title="No groups yet">
            {canMutate && <p>A group gathers assets to run a command on, or to filter the assets list by.</p>}
          </EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label="Groups">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Assets</th>
                  <th scope="col">Description</th>
                  <th scope="col">Changed</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((g) => (
                  <tr key={g.id}>
                    <th scope="row">
                      <Link to={`/groups/${encodeURIComponent(g.id)}`}>{g.name}</Link>
                    </th>
                    <td className="cell-number">{g.asset_ids.length}</td>
                    <td className="cell-wide">{g.description ?? <span className="muted">—</span>}</td>
                    <td>{formatTime(g.updated_at)}</td>
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
