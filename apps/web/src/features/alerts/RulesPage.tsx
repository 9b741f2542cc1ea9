/** Alert rules the caller may see; create, edit and delete for roles that may change things. */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { AlertRule } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { EmptyState } from '../../components/EmptyState';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { QueryStates } from '../../components/QueryStates';
import { PageHeader } from '../../components/PageHeader';
import { RuleFormDialog } from './RuleFormDialog';
import { SeverityBadge } from './SeverityBadge';

function condition(rule: AlertRule): string {
  const lasting = rule.duration_minutes > 0 ? ` for ${rule.duration_minutes} min` : '';
  if (rule.kind === 'offline') return `offline${lasting}`;
  if (rule.kind === 'service') return `service ${rule.service ?? '?'} not active${lasting}`;
  return `${rule.kind} above ${rule.threshold_percent ?? '?'}%${lasting}`;
}

export function RulesPage() {
  const { canMutate } = useSession();
  const [editing, setEditing] = useState<AlertRule | 'new' | null>(null);
  const [deleting, setDeleting] = useState<AlertRule | null>(null);
  const rules = useQuery({
    queryKey: ['alerts', 'rules'],
    queryFn: async () => (await hub.call('alerts.rules', { query: { per_page: 500 } })).data,
  });
  const remove = useResourceMutation({
    mutationFn: async (record: AlertRule) =>
      (await hub.call('alerts.ruleDelete', { params: { id: record.id } })).data,
    invalidates: [['alerts']],
    onSuccess: () => {
      setDeleting(null);
    },
  });
  return (
    <section className="page" aria-labelledby="rules-title">
      <PageHeader
        titleId="rules-title"
        title="Alert rules"
        action={
          canMutate && {
            label: 'New rule',
            onClick: () => {
              setEditing('new');
            },
          }
        }
      >
        <Link to="/alerts">Alerts</Link>
      </PageHeader>
      <QueryStates
        query={rules}
        loadingLabel="Loading alert rules"
        empty={
          <EmptyState title="No alert rules yet">
            <p>A rule raises an alert when an asset is offline, or its CPU, memory or disk stays high.</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label="Alert rules">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Condition</th>
                  <th scope="col">Severity</th>
                  <th scope="col">Assets</th>
                  <th scope="col">Enabled</th>
                  {canMutate && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">{r.name}</th>
                    <td>{condition(r)}</td>
                    <td>
                      <SeverityBadge severity={r.severity} />
                    </td>
                    <td>{r.asset_ids.length === 0 ? 'every asset' : r.asset_ids.length}</td>
                    <td>{r.enabled ? 'yes' : 'no'}</td>
                    {canMutate && (
                      <td>
                        <div className="row-actions">
                          <button
                            type="button"
                            onClick={() => {
                              setEditing(r);
                            }}
                          >
                            Edit
                          </button>
                          <button
                            type="button"
                            className="danger"
                            onClick={() => {
                              setDeleting(r);
                            }}
                          >
                            Delete
                          </button>
                        </div>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      {editing !== null && (
        <RuleFormDialog
          rule={editing === 'new' ? null : editing}
          onClose={() => {
            setEditing(null);
          }}
        />
      )}
      <ConfirmMutationDialog
        record={deleting}
        title={(record) => `Delete ${record.name}`}
        confirmLabel="Delete rule"
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {() => <p>Its open alerts are resolved. This cannot be undone.</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
