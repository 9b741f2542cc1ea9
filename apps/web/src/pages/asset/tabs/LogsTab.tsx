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

const columns: RowsColumn<LogEntry>[] = [
  {
    key: 'ts',
    label: 'Time',
    cell: (e) => (e.ts ? <time dateTime={e.ts}>{formatTime(e.ts)}</time> : '—'),
    sortValue: (e) => e.ts ?? '',
  },
  {
    key: 'priority',
    label: 'Priority',
    cell: (e) => (e.priority === null ? '—' : (priorities[e.priority] ?? e.priority)),
    sortValue: (e) => e.priority ?? 8,
  },
  { key: 'source', label: 'Source', cell: (e) => e.source, sortValue: (e) => e.source },
  {
    key: 'message',
    label: 'Message',
    cell: (e) => <code title={e.message}>{e.message}</code>,
    className: 'cell-wide',
  },
];

export function LogsTab({ asset }: AssetTabProps) {
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
      <form className="filters log-query" onSubmit={submit} aria-label="Log query">
        <label>
          Source
          <select value={form.source} onChange={set('source')}>
            <option value="journal">journald</option>
            <option value="file">file under /var/log</option>
          </select>
        </label>
        {form.source === 'journal' ? (
          <label>
            Unit
            <input value={form.unit} onChange={set('unit')} placeholder="all units, or e.g. ssh.service" />
          </label>
        ) : (
          <label>
            File
            <input value={form.path} onChange={set('path')} required />
          </label>
        )}
        <label>
          Containing
          <input type="search" value={form.grep} onChange={set('grep')} placeholder="text to find" />
        </label>
        <label>
          Priority at most
          <select value={form.priority} onChange={set('priority')}>
            <option value="">any</option>
            {priorities.map((name, value) => (
              <option key={name} value={value}>
                {value} {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Since
          <input type="datetime-local" value={form.since} onChange={set('since')} />
        </label>
        <label>
          Until
          <input type="datetime-local" value={form.until} onChange={set('until')} />
        </label>
        <label>
          At most
          <input type="number" min={1} max={5000} value={form.limit} onChange={set('limit')} />
        </label>
        <div className="form-submit">
          <button type="submit" className="primary">
            Query logs
          </button>
        </div>
      </form>
      <AgentAnswer query={logs} what="logs">
        {(data) => (
          <>
            {data.truncated && (
              <p className="muted small">
                More entries match: only the first {data.entries.length} are shown.
              </p>
            )}
            <RowsTable
              label="Log entries"
              rows={data.entries}
              columns={columns}
              rowKey={(_e, index) => String(index)}
              filterText={(e) => `${e.source} ${e.message}`}
              emptyTitle="No log entries match"
            />
          </>
        )}
      </AgentAnswer>
    </>
  );
}
