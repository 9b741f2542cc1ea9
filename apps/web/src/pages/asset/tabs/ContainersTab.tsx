/**
 * The host's containers through its agent's container engine: the containers with state, health, image and
 * ports, start/stop/restart after a confirmation, a container's logs (stdout and stderr apart, or the raw
 * TTY); the compose stacks; the images and volumes. A host without a reachable engine shows the hub's answer
 * as it is.
 */
import { useState, type SyntheticEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Container, ContainerImage, ContainerLogsQuery, ContainerVolume } from '@svc/protocol';
import { hub } from '../../../api/client';
import { useSession } from '../../../app/session';
import { RowsTable, type RowsColumn } from '../../../components/RowsTable';
import { formatBytes, formatTime } from '../../../components/units';
import { useT, type I18n } from '../../../i18n/I18nProvider';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';
import {
  DoneNotice,
  LifecycleButtons,
  LifecycleDialog,
  useLifecycleRequests,
  type LifecycleAction,
} from './lifecycle-actions';

type View = 'containers' | 'stacks' | 'images' | 'volumes';
const views = [
  { view: 'containers', label: 'assetTabs.containers' },
  { view: 'stacks', label: 'assetTabs.stacks' },
  { view: 'images', label: 'assetTabs.images' },
  { view: 'volumes', label: 'assetTabs.volumes' },
] as const satisfies readonly { view: View; label: string }[];

const actionRoute = {
  start: 'containers.start',
  stop: 'containers.stop',
  restart: 'containers.restart',
} as const;

/** One page of 500 is every container of a homelab host; the rest are counted, not hidden silently. */
const perPage = 500;

function stateClass(c: Pick<Container, 'state' | 'health'>): string {
  if (c.health === 'unhealthy' || c.state === 'dead') return 'state-bad';
  if (c.state === 'running') return 'state-ok';
  return 'state-idle';
}

/** What makes sense now: a running container stops or restarts, any other starts. */
function actionsFor(c: Container): LifecycleAction[] {
  return c.state === 'running' || c.state === 'restarting' ? ['stop', 'restart'] : ['start'];
}

function portsText(c: Container): string {
  return c.ports
    .map((p) =>
      p.public_port === null
        ? `${p.private_port}/${p.type}`
        : `${p.ip ?? ''}${p.ip ? ':' : ''}${p.public_port}→${p.private_port}/${p.type}`,
    )
    .join(', ');
}

/** The engine's states and health (`running`, `unhealthy`) are its own words: data, kept as they are. */
const containerColumns = (t: I18n['t']): RowsColumn<Container>[] => [
  {
    key: 'name',
    label: t('assetTabs.name'),
    cell: (c) => <span translate="no">{c.name}</span>,
    sortValue: (c) => c.name,
  },
  {
    key: 'state',
    label: t('assetTabs.state'),
    cell: (c) => (
      <span className={stateClass(c)} title={c.status} translate="no">
        {c.state}
        {c.health && <span className="muted"> ({c.health})</span>}
      </span>
    ),
    sortValue: (c) => c.state,
  },
  {
    key: 'image',
    label: t('assetTabs.image'),
    cell: (c) => <code>{c.image}</code>,
    sortValue: (c) => c.image,
  },
  {
    key: 'ports',
    label: t('assetTabs.ports'),
    cell: (c) => <span translate="no">{portsText(c) || '—'}</span>,
  },
  {
    key: 'stack',
    label: t('assetTabs.stack'),
    cell: (c) => <span translate="no">{c.compose_project ?? '—'}</span>,
    sortValue: (c) => c.compose_project ?? '',
  },
  {
    key: 'created',
    label: t('assetTabs.createdAt'),
    cell: (c) => (c.created_at ? <time dateTime={c.created_at}>{formatTime(c.created_at)}</time> : '—'),
    sortValue: (c) => c.created_at ?? '',
  },
];

const imageColumns = (t: I18n['t']): RowsColumn<ContainerImage>[] => [
  {
    key: 'tags',
    label: t('assetTabs.tags'),
    cell: (i) =>
      i.tags.length ? (
        <span translate="no">{i.tags.join(', ')}</span>
      ) : (
        <span className="muted">{t('assetTabs.untagged')}</span>
      ),
    sortValue: (i) => i.tags[0] ?? '',
  },
  {
    key: 'id',
    label: t('assetTabs.id'),
    cell: (i) => <code>{i.id.replace(/^sha256:/, '').slice(0, 12)}</code>,
  },
  {
    key: 'size',
    label: t('assetTabs.size'),
    cell: (i) => <span translate="no">{formatBytes(i.size_bytes)}</span>,
    sortValue: (i) => i.size_bytes,
    className: 'cell-number',
  },
  {
    key: 'containers',
    label: t('assetTabs.containers'),
    cell: (i) => (i.containers === null ? '—' : String(i.containers)),
    sortValue: (i) => i.containers ?? -1,
    className: 'cell-number',
  },
  {
    key: 'created',
    label: t('assetTabs.createdAt'),
    cell: (i) => (i.created_at ? <time dateTime={i.created_at}>{formatTime(i.created_at)}</time> : '—'),
    sortValue: (i) => i.created_at ?? '',
  },
];

const volumeColumns = (t: I18n['t']): RowsColumn<ContainerVolume>[] => [
  {
    key: 'name',
    label: t('assetTabs.name'),
    cell: (v) => <span translate="no">{v.name}</span>,
    sortValue: (v) => v.name,
  },
  {
    key: 'driver',
    label: t('assetTabs.driver'),
    cell: (v) => <span translate="no">{v.driver}</span>,
    sortValue: (v) => v.driver,
  },
  {
    key: 'stack',
    label: t('assetTabs.stack'),
    cell: (v) => <span translate="no">{v.compose_project ?? '—'}</span>,
    sortValue: (v) => v.compose_project ?? '',
  },
  {
    key: 'mountpoint',
    label: t('assetTabs.mountPoint'),
    cell: (v) => <code>{v.mountpoint}</code>,
    className: 'cell-wide',
  },
];

interface LogForm {
  tail: string;
  since: string;
  timestamps: boolean;
}

function logQueryOf(form: LogForm): ContainerLogsQuery {
  const tail = Number.parseInt(form.tail, 10);
  const since = form.since ? Date.parse(form.since) : Number.NaN;
  return {
    ...(Number.isFinite(tail) && tail > 0 ? { tail } : {}),
    ...(Number.isNaN(since) ? {} : { since: new Date(since).toISOString() }),
    ...(form.timestamps ? { timestamps: true } : {}),
  };
}

function ContainerLogsPanel({
  asset,
  container,
  onClose,
}: {
  asset: AssetTabProps['asset'];
  container: Container;
  onClose: () => void;
}) {
  const { t } = useT();
  const [form, setForm] = useState<LogForm>({ tail: '200', since: '', timestamps: false });
  const [query, setQuery] = useState<ContainerLogsQuery>(() => logQueryOf(form));
  const logs = useQuery({
    queryKey: assetPartKey(asset.id, 'containers', 'logs', container.id, query),
    queryFn: async () => (await hub.call('containers.logs', { params: { id: container.id }, query })).data,
    placeholderData: keepPreviousData,
    refetchOnWindowFocus: false,
  });
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    setQuery(logQueryOf(form));
  };
  return (
    <section className="container-logs" aria-label={t('assetTabs.logsOf', { name: container.name })}>
      <div className="section-toolbar">
        <h3>{t('assetTabs.logsOf', { name: container.name })}</h3>
        <button type="button" className="small" onClick={onClose}>
          {t('assetTabs.closeLogs')}
        </button>
      </div>
      <form className="filters log-query" onSubmit={submit} aria-label={t('assetTabs.containerLogQuery')}>
        <label>
          {t('assetTabs.lastLines')}
          <input
            type="number"
            min={1}
            max={10000}
            value={form.tail}
            onChange={(e) => {
              setForm((f) => ({ ...f, tail: e.target.value }));
            }}
          />
        </label>
        <label>
          {t('assetTabs.since')}
          <input
            type="datetime-local"
            value={form.since}
            onChange={(e) => {
              setForm((f) => ({ ...f, since: e.target.value }));
            }}
          />
        </label>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={form.timestamps}
            onChange={(e) => {
              setForm((f) => ({ ...f, timestamps: e.target.checked }));
            }}
          />
          {t('assetTabs.engineTimestamps')}
        </label>
        <div className="form-submit">
          <button type="submit" className="primary">
            {t('assetTabs.showLogs')}
          </button>
        </div>
      </form>
      <AgentAnswer query={logs} what="logs">
        {(data) => (
          <>
            <p className="muted small">
              {t(data.tty ? 'assetTabs.ttyStream' : 'assetTabs.twoStreams')}
              {data.truncated && ` ${t('assetTabs.logTruncated')}`}
            </p>
            {data.entries.length === 0 ? (
              <p className="muted">{t('assetTabs.noLogLines')}</p>
            ) : (
              <pre className="container-log" aria-label={t('assetTabs.logLines')} translate="no">
                {data.entries.map((entry, index) => (
                  <span key={index} className={`log-line log-${entry.stream}`}>
                    {entry.stream === 'stderr' && <span className="log-stream">stderr </span>}
                    {entry.text}
                    {'\n'}
                  </span>
                ))}
              </pre>
            )}
          </>
        )}
      </AgentAnswer>
    </section>
  );
}

function ContainersView({ asset }: AssetTabProps) {
  const { t } = useT();
  const { canMutate } = useSession();
  const requests = useLifecycleRequests<Container>();
  const [logsOf, setLogsOf] = useState<Container | null>(null);
  const containers = useQuery({
    queryKey: assetPartKey(asset.id, 'containers', 'list'),
    queryFn: async () =>
      await hub.call('containers.list', { params: { id: asset.id }, query: { per_page: perPage } }),
  });
  return (
    <>
      <DoneNotice done={requests.done} />
      <AgentAnswer query={containers} what="containers">
        {(page) => (
          <>
            {page.meta.total > page.data.length && (
              <p className="muted small">
                {t('assetTabs.firstContainers', { shown: page.data.length, total: page.meta.total })}
              </p>
            )}
            <RowsTable
              label={t('assetTabs.containers')}
              rows={page.data}
              columns={containerColumns(t)}
              rowKey={(c) => c.id}
              filterText={(c) => `${c.name} ${c.image} ${c.state} ${c.compose_project ?? ''}`}
              initialSort={{ key: 'name', descending: false }}
              emptyTitle={t('assetTabs.noContainers')}
              actions={(c: Container) => (
                <span className="row-buttons">
                  <button
                    type="button"
                    className="small"
                    aria-label={t('assetTabs.logsOf', { name: c.name })}
                    onClick={() => {
                      setLogsOf(c);
                    }}
                  >
                    {t('assetTabs.logs')}
                  </button>
                  {canMutate && (
                    <LifecycleButtons
                      name={c.name}
                      actions={actionsFor(c)}
                      onAsk={(action) => {
                        requests.ask(c, action);
                      }}
                    />
                  )}
                </span>
              )}
            />
          </>
        )}
      </AgentAnswer>
      {logsOf && (
        <ContainerLogsPanel
          key={logsOf.id}
          asset={asset}
          container={logsOf}
          onClose={() => {
            setLogsOf(null);
          }}
        />
      )}
      {canMutate && (
        <LifecycleDialog
          assetName={asset.name}
          kind="container"
          nameOf={(container: Container) => container.name}
          pending={requests.pending}
          call={async ({ target, action }) =>
            (await hub.call(actionRoute[action], { params: { id: target.id } })).data
          }
          invalidates={[assetPartKey(asset.id, 'containers')]}
          doneText={(result, { target }) =>
            result.changed
              ? t('assetTabs.actionDone', { name: target.name, action: result.action, state: result.state })
              : t('assetTabs.actionUnchanged', { name: target.name, state: result.state })
          }
          consequence={{
            start: t('assetTabs.containerConsequence', { action: 'start' }),
            stop: t('assetTabs.containerConsequence', { action: 'stop' }),
            restart: t('assetTabs.containerConsequence', { action: 'restart' }),
          }}
          onClose={requests.finish}
        />
      )}
    </>
  );
}

function StacksView({ asset }: AssetTabProps) {
  const { t, rich } = useT();
  const stacks = useQuery({
    queryKey: assetPartKey(asset.id, 'containers', 'stacks'),
    queryFn: async () =>
      (await hub.call('containers.stacks', { params: { id: asset.id }, query: { per_page: perPage } })).data,
  });
  return (
    <AgentAnswer query={stacks} what="stacks">
      {(data) =>
        data.length === 0 ? (
          <p className="muted">
            {rich('assetTabs.noStacks', { label: <code>com.docker.compose.project</code> })}
          </p>
        ) : (
          <ul className="plain-list stack-list" aria-label={t('assetTabs.stacks')}>
            {data.map((stack) => (
              <li key={stack.id} className="stack-card">
                <h3>
                  <span translate="no">{stack.project}</span>{' '}
                  <span className={stack.running === stack.total ? 'state-ok' : 'state-bad'}>
                    {t('assetTabs.running', { running: stack.running, total: stack.total })}
                  </span>
                </h3>
                <p className="muted small">
                  {t('assetTabs.stackServices', { services: stack.services.join(', ') || '—' })}
                </p>
                <ul className="plain-list">
                  {stack.containers.map((c) => (
                    <li key={c.id}>
                      <span className={stateClass(c)} translate="no">
                        {c.state}
                        {c.health ? ` (${c.health})` : ''}
                      </span>{' '}
                      <span translate="no">{c.name}</span> <code>{c.image}</code>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        )
      }
    </AgentAnswer>
  );
}

function ImagesView({ asset }: AssetTabProps) {
  const { t } = useT();
  const images = useQuery({
    queryKey: assetPartKey(asset.id, 'containers', 'images'),
    queryFn: async () =>
      (await hub.call('containers.images', { params: { id: asset.id }, query: { per_page: perPage } })).data,
  });
  return (
    <AgentAnswer query={images} what="images">
      {(data) => (
        <RowsTable
          label={t('assetTabs.images')}
          rows={data}
          columns={imageColumns(t)}
          rowKey={(i) => i.id}
          filterText={(i) => i.tags.join(' ')}
          emptyTitle={t('assetTabs.noImages')}
        />
      )}
    </AgentAnswer>
  );
}

function VolumesView({ asset }: AssetTabProps) {
  const { t } = useT();
  const volumes = useQuery({
    queryKey: assetPartKey(asset.id, 'containers', 'volumes'),
    queryFn: async () =>
      (await hub.call('containers.volumes', { params: { id: asset.id }, query: { per_page: perPage } })).data,
  });
  return (
    <AgentAnswer query={volumes} what="volumes">
      {(data) => (
        <RowsTable
          label={t('assetTabs.volumes')}
          rows={data}
          columns={volumeColumns(t)}
          rowKey={(v) => v.name}
          filterText={(v) => `${v.name} ${v.compose_project ?? ''}`}
          emptyTitle={t('assetTabs.noVolumes')}
        />
      )}
    </AgentAnswer>
  );
}

export function ContainersTab({ asset }: AssetTabProps) {
  const { t } = useT();
  const [view, setView] = useState<View>('containers');
  return (
    <>
      <div className="section-toolbar">
        <div className="segmented" role="group" aria-label={t('assetTabs.containerViews')}>
          {views.map((v) => (
            <button
              key={v.view}
              type="button"
              aria-pressed={view === v.view}
              onClick={() => {
                setView(v.view);
              }}
            >
              {t(v.label)}
            </button>
          ))}
        </div>
      </div>
      {view === 'containers' && <ContainersView asset={asset} />}
      {view === 'stacks' && <StacksView asset={asset} />}
      {view === 'images' && <ImagesView asset={asset} />}
      {view === 'volumes' && <VolumesView asset={asset} />}
    </>
  );
}
