/**
 * Start, stop or restart one service on every member of a group (`POST /bulk/service-action`), shown on the
 * group's page: one line per member with the state the agent reports, or why it could not act.
 */
import { useState, type SyntheticEvent } from 'react';
import { useMutation, useQueries } from '@tanstack/react-query';
import { serviceActions, type Group } from '@svc/protocol';
import { hub } from '../../api/client';
import { fieldProblems } from '../../components/form-problems';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n/I18nProvider';

type ServiceAction = (typeof serviceActions)[number];

/** Names of the first results' assets (bounded, as on the Run page); the id stands in for the rest. */
function useNames(ids: readonly string[]): (id: string) => string {
  const answers = useQueries({
    queries: ids.slice(0, 100).map((id) => ({
      queryKey: ['assets', 'detail', id],
      queryFn: async () => (await hub.call('assets.get', { params: { id } })).data,
      staleTime: 60_000,
    })),
  });
  const found = new Map<string, string>();
  for (const answer of answers) if (answer.data) found.set(answer.data.id, answer.data.name);
  return (id) => found.get(id) ?? id;
}

export function BulkServiceForm({ group }: { group: Group }) {
  const { t } = useT();
  const [service, setService] = useState('');
  const [action, setAction] = useState<ServiceAction>('restart');
  const send = useMutation({
    mutationFn: async () =>
      (await hub.call('bulk.serviceAction', { body: { service, action, group: group.id } })).data,
  });
  const nameOf = useNames(send.data?.results.map((r) => r.asset_id) ?? []);
  const problems = fieldProblems(send.error);
  const ready = service.trim() !== '' && group.asset_ids.length > 0 && !send.isPending;
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (ready) send.mutate();
  };
  return (
    <section className="panel" aria-labelledby="bulk-title">
      <h2 id="bulk-title">{t('bulk.title')}</h2>
      <form className="run-options" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="bulk-service">{t('bulk.service')}</label>
          <input
            id="bulk-service"
            translate="no"
            className="mono"
            value={service}
            placeholder="nginx.service"
            aria-invalid={problems.service !== undefined}
            onChange={(e) => {
              setService(e.target.value);
            }}
          />
          {problems.service && (
            <span className="field-error" translate="no">
              {problems.service}
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor="bulk-action">{t('bulk.action')}</label>
          <select
            id="bulk-action"
            value={action}
            onChange={(e) => {
              setAction(e.target.value as ServiceAction);
            }}
          >
            {serviceActions.map((a) => (
              <option key={a} value={a}>
                {t('bulk.actionName', { action: a })}
              </option>
            ))}
          </select>
        </div>
        <div className="run-buttons">
          <button type="submit" className="primary" disabled={!ready}>
            {send.isPending ? t('bulk.sending') : t('bulk.apply')}
          </button>
        </div>
      </form>
      {send.isError && Object.keys(problems).length === 0 && <ErrorNotice error={send.error} />}
      {send.isSuccess && (
        <>
          <p className="run-summary" aria-live="polite">
            {t('bulk.summary', { ...send.data.summary })}
          </p>
          <table className="data-table" aria-label={t('bulk.results')}>
            <thead>
              <tr>
                <th scope="col">{t('bulk.asset')}</th>
                <th scope="col">{t('bulk.result')}</th>
                <th scope="col">{t('bulk.stateOrReason')}</th>
              </tr>
            </thead>
            <tbody>
              {send.data.results.map((r) => (
                <tr key={r.asset_id} data-asset-id={r.asset_id}>
                  <th scope="row" translate="no">
                    {nameOf(r.asset_id)}
                  </th>
                  <td>{t('bulk.status', { status: r.status })}</td>
                  <td className="cell-wide" translate="no">
                    {r.active_state ?? r.error ?? ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
