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
const views: { view: View; label: string }[] = [
  { view: 'containers', label: 'Containers' },
  { view: 'stacks', label: 'Stacks' },
  { view: 'images', label: 'Images' },
  { view: 'volumes', label: 'Volumes' },
];

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

const containerColumns: RowsColumn<Container>[] = [
  { key: 'name', label: 'Name', cell: (c) => c.name, sortValue: (c) => c.name },
  {
    key: 'state',
    label: 'State',
    cell: (c) => (
      <span className={stateClass(c)} title={c.status}>
        {c.state}
        {c.health && <span className="muted"> ({c.health})</span>}
      </span>
    ),
    sortValue: (c) => c.state,
  },
  { key: 'image', label: 'Image', cell: (c) => <code>{c.image}</code>, sortValue: (c) => c.image },
  { key: 'ports', label: 'Ports', cell: (c) => portsText(c) || '—' },
  {
    key: 'stack',
    label: 'Stack',
    cell: (c) => c.compose_project ?? '—',
    sortValue: (c) => c.compose_project ?? '',
  },
  {
    key: 'created',
    label: 'Created',
    cell: (c) => (c.created_at ? <time dateTime={c.created_at}>{formatTime(c.created_at)}</time> : '—'),
    sortValue: (c) => c.created_at ?? '',
  },
];

const imageColumns: RowsColumn<ContainerImage>[] = [
  {
    key: 'tags',
    label: 'Tags',
    cell: (i) => (i.tags.length ? i.tags.join(', ') : <span className="muted">untagged</span>),
    sortValue: (i) => i.tags[0] ?? '',
  },
  { key: 'id', label: 'Id', cell: (i) => <code>{i.id.replace(/^sha256:/, '').slice(0, 12)}</code> },
  {
    key: 'size',
    label: 'Size',
    cell: (i) => formatBytes(i.size_bytes),
    sortValue: (i) => i.size_bytes,
    className: 'cell-number',
  },
  {
    key: 'containers',
    label: 'Containers',
    cell: (i) => (i.containers === null ? '—' : String(i.containers)),
    sortValue: (i) => i.containers ?? -1,
    className: 'cell-number',
  },
  {
    key: 'created',
    label: 'Created',
    cell: (i) => (i.created_at ? <time dateTime={i.created_at}>{formatTime(i.created_at)}</time> : '—'),
    sortValue: (i) => i.created_at ?? '',
  },
];

const volumeColumns: RowsColumn<ContainerVolume>[] = [
  { key: 'name', label: 'Name', cell: (v) => v.name, sortValue: (v) => v.name },
  { key: 'driver', label: 'Driver', cell: (v) => v.driver, sortValue: (v) => v.driver },
  {
    key: 'stack',
    label: 'Stack',
    cell: (v) => v.compose_project ?? '—',
    sortValue: (v) => v.compose_project ?? '',
  },
  {
    key: 'mountpoint',
    label: 'Mount point',
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
    <section className="container-logs" aria-label={`Logs of ${container.name}`}>
      <div className="section-toolbar">
        <h3>Logs of {container.name}</h3>
        <button type="button" className="small" onClick={onClose}>
          Close logs
        </button>
      </div>
      <form className="filters log-query" onSubmit={submit} aria-label="Container log query">
        <label>
          Last lines
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
          Since
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
          Engine timestamps
        </label>
        <div className="form-submit">
          <button type="submit" className="primary">
            Show logs
          </button>
        </div>
      </form>
      <AgentAnswer query={logs} what="logs">
        {(data) => (
          <>
            <p className="muted small">
              {data.tty
                ? 'This container has a terminal (TTY): its output is one stream.'
                : 'Standard output and standard error, in the order written.'}
              {data.truncated && ' Only the newest lines within the size limit are shown.'}
            </p>
            {data.entries.length === 0 ? (
              <p className="muted">No log lines.</p>
            ) : (
              <pre className="container-log" aria-label="Log lines">
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
                The first {page.data.length} of {page.meta.total} containers are shown.
              </p>
            )}
            <RowsTable
              label="Containers"
              rows={page.data}
              columns={containerColumns}
              rowKey={(c) => c.id}
              filterText={(c) => `${c.name} ${c.image} ${c.state} ${c.compose_project ?? ''}`}
              initialSort={{ key: 'name', descending: false }}
              emptyTitle="No containers on this host"
              actions={(c: Container) => (
                <span className="row-buttons">
                  <button
                    type="button"
                    className="small"
                    aria-label={`Logs of ${c.name}`}
                    onClick={() => {
                      setLogsOf(c);
                    }}
                  >
                    Logs
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
          noun="container"
          nameOf={(container: Container) => container.name}
          pending={requests.pending}
          call={async ({ target, action }) =>
            (await hub.call(actionRoute[action], { params: { id: target.id } })).data
          }
          invalidates={[assetPartKey(asset.id, 'containers')]}
          doneText={(result, { target }) =>
            result.changed
              ? `${target.name}: ${result.action} done, now ${result.state}`
              : `${target.name}: already ${result.state}, nothing to do`
          }
          consequence={{
            start: 'The container is started now.',
            stop: 'The container is asked to stop and killed after 10 seconds; what it serves stops answering.',
            restart: 'The container stops and starts again; what it serves is briefly unavailable.',
          }}
          onClose={requests.finish}
        />
      )}
    </>
  );
}

function StacksView({ asset }: AssetTabProps) {
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
            No compose stacks: no container here carries a com.docker.compose.project label.
          </p>
        ) : (
          <ul className="plain-list stack-list" aria-label="Stacks">
            {data.map((stack) => (
              <li key={stack.id} className="stack-card">
                <h3>
                  {stack.project}{' '}
                  <span className={stack.running === stack.total ? 'state-ok' : 'state-bad'}>
                    {stack.running}/{stack.total} running
                  </span>
                </h3>
                <p className="muted small">Services: {stack.services.join(', ') || '—'}</p>
                <ul className="plain-list">
                  {stack.containers.map((c) => (
                    <li key={c.id}>
                      <span className={stateClass(c)}>
                        {c.state}
                        {c.health ? ` (${c.health})` : ''}
                      </span>{' '}
                      {c.name} <code>{c.image}</code>
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
  const images = useQuery({
    queryKey: assetPartKey(asset.id, 'containers', 'images'),
    queryFn: async () =>
      (await hub.call('containers.images', { params: { id: asset.id }, query: { per_page: perPage } })).data,
  });
  return (
    <AgentAnswer query={images} what="images">
      {(data) => (
        <RowsTable
          label="Images"
          rows={data}
          columns={imageColumns}
          rowKey={(i) => i.id}
          filterText={(i) => i.tags.join(' ')}
          emptyTitle="No images on this host"
        />
      )}
    </AgentAnswer>
  );
}

function VolumesView({ asset }: AssetTabProps) {
  const volumes = useQuery({
    queryKey: assetPartKey(asset.id, 'containers', 'volumes'),
    queryFn: async () =>
      (await hub.call('containers.volumes', { params: { id: asset.id }, query: { per_page: perPage } })).data,
  });
  return (
    <AgentAnswer query={volumes} what="volumes">
      {(data) => (
        <RowsTable
          label="Volumes"
          rows={data}
          columns={volumeColumns}
          rowKey={(v) => v.name}
          filterText={(v) => `${v.name} ${v.compose_project ?? ''}`}
          emptyTitle="No volumes on this host"
        />
      )}
    </AgentAnswer>
  );
}

export function ContainersTab({ asset }: AssetTabProps) {
  const [view, setView] = useState<View>('containers');
  return (
    <>
      <div className="section-toolbar">
        <div className="segmented" role="group" aria-label="Container views">
          {views.map((v) => (
            <button
              key={v.view}
              type="button"
              aria-pressed={view === v.view}
              onClick={() => {
                setView(v.view);
              }}
            >
              {v.label}
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
