/**
 * Logs of the asset queried through its agent: journald (optionally one unit) or a file under /var/log,
 * filtered by text, priority and time, newest last as the agent returns them. Logs can hold secrets: a viewer
 * gets the hub's 403 as it is.
 */
import { useState, type SyntheticEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { LogEntry, LogQuery } from '@svc/protocol';
import { hub } from '../../../api/client';
import { RowsTable, type RowsColumn } from '../../../components/RowsTable';
import { formatTime } from '../../../components/units';
import { useT, type I18n } from '../../../i18n/I18nProvider';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

const priorities = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'] as const;

interface LogForm {
  source: 'journal' | 'file';
  unit: string;
  path: string;
  grep: string;
  priority: string;
  since: string;
  until: string;
  limit: string;
}

const initialForm: LogForm = {
  source: 'journal',
  unit: '',
  path: '/var/log/syslog',
  grep: '',
  priority: '',
  since: '',
  until: '',
  limit: '200',
};

/** `datetime-local` text (the reader's time zone) → ISO 8601, or nothing. */
function isoOf(local: string): string | undefined {
  if (!local) return undefined;
  const ms = Date.parse(local);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** The query the form asks for: only the fields that are set. */
function logQueryOf(form: LogForm): LogQuery {
  const limit = Number.parseInt(form.limit, 10);
  const since = isoOf(form.since);
  const until = isoOf(form.until);
  return {
    source: form.source,
    ...(form.source === 'journal' && form.unit.trim() ? { unit: form.unit.trim() } : {}),
    ...(form.source === 'file' && form.path.trim() ? { path: form.path.trim() } : {}),
    ...(form.grep.trim() ? { grep: form.grep.trim() } : {}),
    ...(form.priority !== '' ? { priority: Number(form.priority) } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
    ...(Number.isFinite(limit) && limit > 0 ? { limit } : {}),
  };
}

/** syslog's priority names (`err`, `warning`…) are the journal's own words, kept as they are. */
function columnsOf(t: I18n['t']): RowsColumn<LogEntry>[] {
  return [
    {
      key: 'ts',
      label: t('assetTabs.time'),
      cell: (e) => (e.ts ? <time dateTime={e.ts}>{formatTime(e.ts)}</time> : '—'),
      sortValue: (e) => e.ts ?? '',
    },
    {
      key: 'priority',
      label: t('assetTabs.priority'),
      cell: (e) =>
        e.priority === null ? '—' : <span translate="no">{priorities[e.priority] ?? e.priority}</span>,
      sortValue: (e) => e.priority ?? 8,
    },
    {
      key: 'source',
      label: t('assetTabs.source'),
      cell: (e) => <span translate="no">{e.source}</span>,
      sortValue: (e) => e.source,
    },
    {
      key: 'message',
      label: t('assetTabs.message'),
      cell: (e) => <code title={e.message}>{e.message}</code>,
      className: 'cell-wide',
    },
  ];
}

export function LogsTab({ asset }: AssetTabProps) {
  const { t } = useT();
  const [form, setForm] = useState<LogForm>(initialForm);
  const [query, setQuery] = useState<LogQuery>(() => logQueryOf(initialForm));
  const logs = useQuery({
    queryKey: assetPartKey(asset.id, 'logs', query),
    queryFn: async () => (await hub.call('system.logs', { params: { id: asset.id }, query })).data,
    placeholderData: keepPreviousData,
    refetchOnWindowFocus: false,
  });
  const set = (key: keyof LogForm) => (event: { target: { value: string } }) => {
    setForm((f) => ({ ...f, [key]: event.target.value }));
  };
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    setQuery(logQueryOf(form));
  };
  return (
    <>
      <form className="filters log-query" onSubmit={submit} aria-label={t('assetTabs.logQuery')}>
        <label>
          {t('assetTabs.source')}
          <select value={form.source} onChange={set('source')}>
            <option value="journal" translate="no">
              journald
            </option>
            <option value="file">{t('assetTabs.sourceFile', { dir: '/var/log' })}</option>
          </select>
        </label>
        {form.source === 'journal' ? (
          <label>
            {t('assetTabs.unit')}
            <input
              value={form.unit}
              onChange={set('unit')}
              placeholder={t('assetTabs.unitPlaceholder', { example: 'ssh.service' })}
            />
          </label>
        ) : (
          <label>
            {t('assetTabs.file')}
            <input value={form.path} onChange={set('path')} required />
          </label>
        )}
        <label>
          {t('assetTabs.containing')}
          <input
            type="search"
            value={form.grep}
            onChange={set('grep')}
            placeholder={t('assetTabs.textToFind')}
          />
        </label>
        <label>
          {t('assetTabs.priorityAtMost')}
          <select value={form.priority} onChange={set('priority')}>
            <option value="">{t('assetTabs.anyPriority')}</option>
            {priorities.map((name, value) => (
              <option key={name} value={value} translate="no">
                {value} {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('assetTabs.since')}
          <input type="datetime-local" value={form.since} onChange={set('since')} />
        </label>
        <label>
          {t('assetTabs.until')}
          <input type="datetime-local" value={form.until} onChange={set('until')} />
        </label>
        <label>
          {t('assetTabs.atMost')}
          <input type="number" min={1} max={5000} value={form.limit} onChange={set('limit')} />
        </label>
        <div className="form-submit">
          <button type="submit" className="primary">
            {t('assetTabs.queryLogs')}
          </button>
        </div>
      </form>
      <AgentAnswer query={logs} what="logs">
        {(data) => (
          <>
            {data.truncated && (
              <p className="muted small">{t('assetTabs.moreEntries', { n: data.entries.length })}</p>
            )}
            <RowsTable
              label={t('assetTabs.logEntries')}
              rows={data.entries}
              columns={columnsOf(t)}
              rowKey={(_e, index) => String(index)}
              filterText={(e) => `${e.source} ${e.message}`}
              emptyTitle={t('assetTabs.noLogMatch')}
            />
          </>
        )}
      </AgentAnswer>
    </>
  );
}
