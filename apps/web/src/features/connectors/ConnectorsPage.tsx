/**
 * Connectors (admin): each with its kind, URL, certificate check (insecure flagged), health and last error;
 * add, edit, check now, remove after a confirmation.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Connector, ConnectorCheck } from '@svc/protocol';
import { hub } from '../../api/client';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { EditDeleteButtons } from '../../components/EditDeleteButtons';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Time } from '../../components/Time';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { QueryStates } from '../../components/QueryStates';
import { PageHeader } from '../../components/PageHeader';
import { useT } from '../../i18n/I18nProvider';
import { ConnectorFormDialog, connectorsKey, kindLabels } from './ConnectorFormDialog';
import './connectors.css';

function HealthBadge({ health }: { health: Connector['health'] }) {
  const { t } = useT();
  return <span className={`health health-${health}`}>{t('connectors.health', { health })}</span>;
}

function CheckButton({ connector }: { connector: Connector }) {
  const { rich, t } = useT();
  const [result, setResult] = useState<ConnectorCheck | null>(null);
  const check = useResourceMutation({
    mutationFn: async () => (await hub.call('connectors.test', { params: { id: connector.id } })).data,
    invalidates: [connectorsKey],
    onSuccess: setResult,
  });
  return (
    <>
      <button
        type="button"
        disabled={check.isPending}
        aria-label={t('connectors.checkNamed', { name: connector.name })}
        onClick={() => {
          check.mutate();
        }}
      >
        {check.isPending ? t('connectors.checking') : t('connectors.check')}
      </button>
      {result && (
        <span role="status" className={result.health === 'ok' ? 'muted' : 'field-error'}>
          {result.health === 'ok'
            ? t('connectors.checkOk', { n: result.assets ?? 0 })
            : rich('connectors.checkFailed', { error: <span translate="no">{result.error ?? ''}</span> })}
        </span>
      )}
      {check.isError && <ErrorNotice error={check.error} />}
    </>
  );
}

export function ConnectorsPage() {
  const { t } = useT();
  const [editing, setEditing] = useState<Connector | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Connector | null>(null);
  const connectors = useQuery({
    queryKey: connectorsKey,
    queryFn: async () => (await hub.call('connectors.list', { query: { per_page: 500 } })).data,
    refetchInterval: 10_000,
  });
  const remove = useResourceMutation({
    mutationFn: async (connector: Connector) =>
      (await hub.call('connectors.delete', { params: { id: connector.id } })).data,
    invalidates: [connectorsKey],
    onSuccess: () => {
      setDeleting(null);
    },
  });
  return (
    <section className="page" aria-labelledby="connectors-title">
      <PageHeader
        titleId="connectors-title"
        title={t('nav.connectors')}
        count={connectors.isSuccess ? t('connectors.count', { n: connectors.data.length }) : undefined}
        action={{
          label: t('connectors.new'),
          onClick: () => {
            setEditing('new');
          },
        }}
      />
      <QueryStates
        query={connectors}
        loadingLabel={t('connectors.loading')}
        empty={
          <EmptyState title={t('connectors.none')}>
            <p>{t('connectors.noneText')}</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('nav.connectors')}>
              <thead>
                <tr>
                  <th scope="col">{t('connectors.name')}</th>
                  <th scope="col">{t('connectors.kind')}</th>
                  <th scope="col">{t('connectors.url')}</th>
                  <th scope="col">{t('connectors.certificate')}</th>
                  <th scope="col">{t('connectors.healthColumn')}</th>
                  <th scope="col">{t('connectors.assets')}</th>
                  <th scope="col">{t('connectors.lastError')}</th>
                  <th scope="col">{t('connectors.lastChecked')}</th>
                  <th scope="col">{t('common.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr key={c.id} data-connector-id={c.id}>
                    <th scope="row">
                      <span translate="no">{c.name}</span>
                      {!c.enabled && <span className="muted"> {t('connectors.disabled')}</span>}
                    </th>
                    <td translate="no">{kindLabels[c.kind]}</td>
                    <td className="cell-wide" translate="no">
                      {c.base_url}
                    </td>
                    <td>
                      {c.insecure ? (
                        <span className="tls-insecure-badge" title={t('connectors.insecureTitle')}>
                          {t('connectors.insecureBadge')}
                        </span>
                      ) : (
                        t('connectors.tlsMode', { mode: c.tls_mode })
                      )}
                    </td>
                    <td>
                      <HealthBadge health={c.health} />
                    </td>
                    <td className="cell-number">{c.asset_count}</td>
                    <td className="cell-wide">
                      {c.last_error ? (
                        <span className="field-error" translate="no">
                          {c.last_error}
                        </span>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td>
                      <Time value={c.last_checked_at} />
                    </td>
                    <td>
                      <div className="row-actions">
                        <CheckButton connector={c} />
                        <EditDeleteButtons
                          name={c.name}
                          onEdit={() => {
                            setEditing(c);
                          }}
                          onDelete={() => {
                            setDeleting(c);
                          }}
                          deleteWord="remove"
                        />
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      {editing !== null && (
        <ConnectorFormDialog
          connector={editing === 'new' ? null : editing}
          onClose={() => {
            setEditing(null);
          }}
        />
      )}
      <ConfirmMutationDialog
        record={deleting}
        title={(record) => t('connectors.removeTitle', { name: record.name })}
        confirmLabel={t('connectors.remove')}
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {(record) => <p>{t('connectors.removeText', { n: record.asset_count })}</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
