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
import { useT } from '../../i18n/I18nProvider';
import { RuleFormDialog } from './RuleFormDialog';
import { SeverityBadge } from './SeverityBadge';

const columns = ['name', 'condition', 'severity', 'assets', 'enabled'] as const;

/** The rule's condition in words: its kind, threshold or service, and how long it must last. */
function Condition({ rule }: { rule: AlertRule }) {
  const { t } = useT();
  return t('rules.condition', {
    kind: rule.kind,
    service: rule.service ?? '?',
    threshold: rule.threshold_percent ?? '?',
    failures: rule.failures ?? '?',
    minutes: rule.duration_minutes,
  });
}

export function RulesPage() {
  const { t } = useT();
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
        title={t('rules.title')}
        action={
          canMutate && {
            label: t('rules.new'),
            onClick: () => {
              setEditing('new');
            },
          }
        }
      >
        <Link to="/alerts">{t('rules.alerts')}</Link>
      </PageHeader>
      <QueryStates
        query={rules}
        loadingLabel={t('rules.loading')}
        empty={
          <EmptyState title={t('rules.none')}>
            <p>{t('rules.noneText')}</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('rules.title')}>
              <thead>
                <tr>
                  {columns.map((column) => (
                    <th key={column} scope="col">
                      {t('rules.column', { column })}
                    </th>
                  ))}
                  {canMutate && <th scope="col">{t('common.actions')}</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id}>
                    <th scope="row" translate="no">
                      {r.name}
                    </th>
                    <td>
                      <Condition rule={r} />
                    </td>
                    <td>
                      <SeverityBadge severity={r.severity} />
                    </td>
                    <td>{t('rules.assets', { n: r.asset_ids.length })}</td>
                    <td>{t('rules.enabled', { enabled: r.enabled ? 'yes' : 'no' })}</td>
                    {canMutate && (
                      <td>
                        <div className="row-actions">
                          <button
                            type="button"
                            onClick={() => {
                              setEditing(r);
                            }}
                          >
                            {t('common.edit')}
                          </button>
                          <button
                            type="button"
                            className="danger"
                            onClick={() => {
                              setDeleting(r);
                            }}
                          >
                            {t('common.delete')}
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
        title={(record) => t('common.deleteNamed', { name: record.name })}
        confirmLabel={t('rules.deleteConfirm')}
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {() => <p>{t('rules.deleteText')}</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
