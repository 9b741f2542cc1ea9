/**
 * The infrastructure graph: assets in columns by kind (backup servers, hypervisor nodes, guests, storage,
 * hosts, and the containers agents report on hosts), edges between them drawn as SVG (classes only: the CSP allows no inline styles), and the links
 * people declared, with a form to add one and a button to remove each.
 */
import { useState, type SyntheticEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DependencyEdge, DependencyGraph, DependencyNode } from '@svc/protocol';
import { hub } from '../../api/client';
import { fieldProblems } from '../../components/form-problems';
import { useSession } from '../../app/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { blastRadiusText, useBlastRadius } from './BlastRadiusPanel';
import { useT } from '../../i18n/I18nProvider';
import './dependencies.css';

const dependenciesKey = ['dependencies'] as const;

/** Each column's name is the `dependencies.column` message's branch of its id. */
const columns: { id: string; kinds: readonly string[] }[] = [
  { id: 'backup', kinds: ['backup'] },
  { id: 'hypervisors', kinds: ['node'] },
  { id: 'guests', kinds: ['vm', 'ct'] },
  { id: 'storage', kinds: ['storage', 'nas'] },
  { id: 'hosts', kinds: [] },
  { id: 'containers', kinds: ['container'] },
];
const otherColumn = columns.findIndex((c) => c.kinds.length === 0);

const colWidth = 230;
const boxWidth = 180;
const rowHeight = 44;
const boxHeight = 30;
const top = 36;

interface Placed extends DependencyNode {
  x: number;
  y: number;
}

function layout(graph: DependencyGraph): { placed: Map<string, Placed>; width: number; height: number } {
  const placed = new Map<string, Placed>();
  const rows = columns.map(() => 0);
  for (const node of graph.nodes) {
    let col = columns.findIndex((c) => c.kinds.includes(node.kind));
    if (col === -1) col = otherColumn;
    const row = rows[col] ?? 0;
    rows[col] = row + 1;
    placed.set(node.id, { ...node, x: 10 + col * colWidth, y: top + row * rowHeight });
  }
  return { placed, width: columns.length * colWidth, height: top + Math.max(1, ...rows) * rowHeight + 10 };
}

function edgePath(from: Placed, to: Placed): string {
  const forward = from.x <= to.x;
  const x1 = forward ? from.x + boxWidth : from.x;
  const x2 = forward && from.x !== to.x ? to.x : to.x + (from.x === to.x ? boxWidth : boxWidth);
  const y1 = from.y + boxHeight / 2;
  const y2 = to.y + boxHeight / 2;
  const bend = from.x === to.x ? 40 : (x2 - x1) / 2;
  const c1 = from.x === to.x ? x1 + bend : x1 + bend;
  const c2 = from.x === to.x ? x2 + bend : x2 - bend;
  return `M ${String(x1)} ${String(y1)} C ${String(c1)} ${String(y1)}, ${String(c2)} ${String(y2)}, ${String(x2)} ${String(y2)}`;
}

/** The asset whose blast radius is drawn, and what depends on it. */
interface Highlight {
  root: string;
  dependents: ReadonlySet<string>;
}

/** An asset's presence, which the console words; other nodes' states (a container's `running`) are data. */
const assetStatuses: ReadonlySet<string> = new Set(['online', 'offline', 'unknown']);

function Graph({ graph, highlight }: { graph: DependencyGraph; highlight: Highlight | null }) {
  const { t } = useT();
  const nodeStatusText = (status: string) =>
    assetStatuses.has(status) ? t('asset.status', { status }) : status;
  const { placed, width, height } = layout(graph);
  const lit = (id: string) => highlight !== null && (id === highlight.root || highlight.dependents.has(id));
  const nodeClass = (id: string) =>
    highlight === null
      ? ''
      : id === highlight.root
        ? ' blast-root'
        : highlight.dependents.has(id)
          ? ' in-blast'
          : ' dimmed';
  return (
    // A scroller wider than a phone: focusable, so the keyboard can scroll it too (WCAG 2.1.1).
    <div className="graph-scroll" tabIndex={0} role="region" aria-label={t('dependencies.graphRegion')}>
      <svg
        className="dependency-graph"
        role="img"
        aria-label={t('dependencies.graphLabel', { assets: graph.nodes.length, links: graph.edges.length })}
        viewBox={`0 0 ${String(width)} ${String(height)}`}
        width={width}
        height={height}
      >
        <defs>
          <marker
            id="arrow"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="6"
            markerHeight="6"
            orient="auto"
          >
            <path d="M 0 0 L 10 5 L 0 10 z" className="arrow-head" />
          </marker>
        </defs>
        {columns.map((c, i) => (
          <text key={c.id} x={10 + i * colWidth} y={18} className="graph-column">
            {t('dependencies.column', { column: c.id })}
          </text>
        ))}
        {graph.edges.map((e: DependencyEdge) => {
          const from = placed.get(e.from);
          const to = placed.get(e.to);
          if (!from || !to) return null;
          return (
            <path
              key={`${e.from}-${e.to}-${e.type}-${e.link_id ?? ''}`}
              d={edgePath(from, to)}
              className={`graph-edge edge-${e.type}${highlight !== null && lit(e.from) && lit(e.to) && e.type !== 'backs_up' ? ' blast-edge' : ''}`}
              markerEnd="url(#arrow)"
            >
              <title>
                {t(e.label ? 'dependencies.edgeLabelled' : 'dependencies.edge', {
                  from: from.name,
                  type: e.type,
                  to: to.name,
                  label: e.label ?? '',
                })}
              </title>
            </path>
          );
        })}
        {[...placed.values()].map((n) => (
          <g
            key={n.id}
            className={`graph-node node-${n.kind} status-${n.status}${nodeClass(n.id)}`}
            data-node-id={n.id}
          >
            <rect x={n.x} y={n.y} width={boxWidth} height={boxHeight} rx={5} />
            <text x={n.x + 8} y={n.y + 19} {...asData}>
              {n.name.length > 22 ? `${n.name.slice(0, 21)}…` : n.name}
            </text>
            <title>
              {n.name} ({n.kind}, {nodeStatusText(n.status)})
            </title>
          </g>
        ))}
      </svg>
      <ul className="graph-legend" aria-label={t('dependencies.legend')}>
        {edgeTypes.map((type) => (
          <li key={type} className={`legend-${type}`}>
            {t('dependencies.edgeType', { type })}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** An asset's name in the SVG is data (React's SVG types lack `translate`, which SVG elements have). */
const asData = { translate: 'no' };

const edgeTypes = ['hosts', 'runs', 'stores', 'backs_up', 'declared'] as const;

function LinkForm({ nodes }: { nodes: DependencyNode[] }) {
  const { t } = useT();
  const client = useQueryClient();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [label, setLabel] = useState('');
  const add = useMutation({
    mutationFn: async () =>
      (
        await hub.call('dependencies.createLink', {
          body: { from, to, ...(label.trim() === '' ? {} : { label: label.trim() }) },
        })
      ).data,
    onSuccess: async () => {
      setLabel('');
      await client.invalidateQueries({ queryKey: dependenciesKey });
    },
  });
  const problems = fieldProblems(add.error);
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    add.mutate();
  };
  const options = nodes.map((n) => (
    <option key={n.id} value={n.id} translate="no">
      {n.name} ({n.kind})
    </option>
  ));
  return (
    <form className="link-form" onSubmit={submit} aria-label={t('dependencies.declare')}>
      <label>
        {t('dependencies.depends')}
        <select
          value={from}
          onChange={(e) => {
            setFrom(e.target.value);
          }}
        >
          <option value="">{t('dependencies.choose')}</option>
          {options}
        </select>
      </label>
      <label>
        {t('dependencies.on')}
        <select
          value={to}
          onChange={(e) => {
            setTo(e.target.value);
          }}
        >
          <option value="">{t('dependencies.choose')}</option>
          {options}
        </select>
      </label>
      <label>
        {t('dependencies.label')}
        <input
          value={label}
          onChange={(e) => {
            setLabel(e.target.value);
          }}
        />
      </label>
      <button type="submit" className="primary" disabled={add.isPending || from === '' || to === ''}>
        {t('dependencies.addLink')}
      </button>
      {(problems.from ?? problems.to) !== undefined && (
        <span className="field-error">{problems.from ?? problems.to}</span>
      )}
      {add.isError && problems.from === undefined && problems.to === undefined && (
        <ErrorNotice error={add.error} />
      )}
    </form>
  );
}

export function DependenciesPage() {
  const { rich, t } = useT();
  const { canMutate } = useSession();
  const client = useQueryClient();
  const graph = useQuery({
    queryKey: dependenciesKey,
    queryFn: async () => (await hub.call('dependencies', {})).data,
    refetchInterval: 30_000,
  });
  const remove = useMutation({
    mutationFn: async (id: string) => (await hub.call('dependencies.deleteLink', { params: { id } })).data,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: dependenciesKey });
    },
  });
  const [selected, setSelected] = useState('');
  const radius = useBlastRadius(selected === '' ? null : selected);
  const highlight: Highlight | null =
    selected !== '' && radius.isSuccess
      ? { root: selected, dependents: new Set(radius.data.dependents.map((d) => d.id)) }
      : null;
  const names = new Map(graph.data?.nodes.map((n) => [n.id, n.name]));
  const declared = graph.data?.edges.filter((e) => e.type === 'declared') ?? [];
  return (
    <section className="page" aria-labelledby="dependencies-title">
      <div className="page-header">
        <h1 id="dependencies-title">{t('nav.dependencies')}</h1>
        {graph.isSuccess && (
          <span className="muted">
            {t('dependencies.count', { assets: graph.data.nodes.length, links: graph.data.edges.length })}
          </span>
        )}
      </div>
      {graph.isPending && <Loading label={t('dependencies.loading')} />}
      {graph.isError && <ErrorNotice error={graph.error} retry={() => void graph.refetch()} />}
      {graph.isSuccess && graph.data.nodes.length === 0 && (
        <EmptyState title={t('dependencies.none')}>
          <p>{t('dependencies.noneText')}</p>
        </EmptyState>
      )}
      {graph.isSuccess && graph.data.nodes.length > 0 && (
        <div className="blast-picker" role="search" aria-label={t('blast.title')}>
          <label htmlFor="blast-root">{t('dependencies.whatBreaks')}</label>
          <select
            id="blast-root"
            value={selected}
            onChange={(e) => {
              setSelected(e.target.value);
            }}
          >
            <option value="">{t('dependencies.noAsset')}</option>
            {graph.data.nodes
              .filter((n) => n.kind !== 'container')
              .map((n) => (
                <option key={n.id} value={n.id} translate="no">
                  {n.name}
                </option>
              ))}
          </select>
          {selected !== '' && radius.isSuccess && (
            <span role="status" className="blast-radius-count">
              {rich('dependencies.blastOf', {
                name: <span translate="no">{names.get(selected) ?? selected}</span>,
                radius: blastRadiusText(t, radius.data),
              })}
            </span>
          )}
          {radius.isError && <ErrorNotice error={radius.error} />}
        </div>
      )}
      {graph.isSuccess && graph.data.nodes.length > 0 && <Graph graph={graph.data} highlight={highlight} />}
      {graph.isSuccess && (
        <section aria-labelledby="declared-title">
          <h2 id="declared-title">{t('dependencies.declared')}</h2>
          {declared.length === 0 && <p className="muted">{t('dependencies.noDeclared')}</p>}
          {declared.length > 0 && (
            <ul className="declared-links">
              {declared.map((e) => (
                <li key={e.link_id}>
                  {rich('dependencies.dependsOn', {
                    from: <span translate="no">{names.get(e.from) ?? e.from}</span>,
                    to: <span translate="no">{names.get(e.to) ?? e.to}</span>,
                  })}
                  {e.label && (
                    <span className="muted" translate="no">
                      {' '}
                      ({e.label})
                    </span>
                  )}
                  {canMutate && e.link_id && (
                    <button
                      type="button"
                      aria-label={t('dependencies.removeLink', {
                        from: names.get(e.from) ?? e.from,
                        to: names.get(e.to) ?? e.to,
                      })}
                      onClick={() => {
                        if (e.link_id) remove.mutate(e.link_id);
                      }}
                    >
                      {t('common.remove')}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
          {canMutate && <LinkForm nodes={graph.data.nodes.filter((n) => n.kind !== 'container')} />}
          {remove.isError && <ErrorNotice error={remove.error} />}
        </section>
      )}
    </section>
  );
}
