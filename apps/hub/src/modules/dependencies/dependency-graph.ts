/**
 * The graph as a pure function of its inputs: nodes (the assets and the containers agents report), and edge
 * sources, each a list of edges from one kind of knowledge (connector hierarchy, backup relations, containers
 * on hosts, declared links). Filtering per caller happens here too: a node outside `visible` is absent (a
 * container with its host), and so is every edge touching it.
 */
import type { DependencyEdge, DependencyGraph, DependencyNode } from '@svc/protocol';

export interface GraphAsset {
  id: string;
  name: string;
  source: string;
  status: string;
  hostname: string | null;
  /** The upstream kind for connector assets, else null. */
  connectorKind: string | null;
  parentId: string | null;
  facts: Record<string, unknown>;
}

export type EdgeSource = (assets: readonly GraphAsset[]) => DependencyEdge[];

const edge = (from: string, to: string, type: DependencyEdge['type']): DependencyEdge => ({
  from,
  to,
  type,
  link_id: null,
  label: null,
});

/** A hypervisor node hosts its guests and carries its storage. */
export const connectorHierarchy: EdgeSource = (assets) =>
  assets.flatMap((a) =>
    a.parentId === null ? [] : [edge(a.parentId, a.id, a.connectorKind === 'storage' ? 'stores' : 'hosts')],
  );

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/**
 * A backup server backs up the guests whose VMID it holds groups for (`vm/100` → a qemu guest 100, `ct/101`
 * → an lxc guest 101) and the hosts whose name its host groups carry.
 */
export const backupRelations: EdgeSource = (assets) => {
  const guests = new Map<string, string[]>();
  const hosts = new Map<string, string[]>();
  for (const a of assets) {
    const { vmid } = a.facts;
    if (
      (a.connectorKind === 'vm' || a.connectorKind === 'ct') &&
      (typeof vmid === 'number' || typeof vmid === 'string')
    ) {
      const key = `${a.connectorKind}/${String(vmid)}`;
      guests.set(key, [...(guests.get(key) ?? []), a.id]);
    }
    if (a.connectorKind === null || a.connectorKind === 'node') {
      for (const name of [a.name, a.hostname]) {
        if (name) hosts.set(name.toLowerCase(), [...(hosts.get(name.toLowerCase()) ?? []), a.id]);
      }
    }
  }
  return assets
    .filter((a) => a.connectorKind === 'backup')
    .flatMap((server) => [
      ...strings(server.facts.backed_up_guests).flatMap((key) =>
        (guests.get(key) ?? []).map((id) => edge(server.id, id, 'backs_up')),
      ),
      ...strings(server.facts.backed_up_hosts).flatMap((name) =>
        [...new Set(hosts.get(name.toLowerCase()) ?? [])].map((id) => edge(server.id, id, 'backs_up')),
      ),
    ]);
};

/** A container an agent reported: `<asset id>:<engine id>`, on the asset that runs it. */
export interface GraphContainer {
  id: string;
  assetId: string;
  name: string;
  state: string;
}

/** A host runs its containers. */
export function hostContainers(containers: readonly GraphContainer[]): EdgeSource {
  return () => containers.map((c) => edge(c.assetId, c.id, 'runs'));
}

/** Links people declared, as edges. */
export function declaredEdges(
  links: readonly { id: string; from: string; to: string; label: string | null }[],
): EdgeSource {
  return () =>
    links.map((l) => ({ from: l.from, to: l.to, type: 'declared' as const, link_id: l.id, label: l.label }));
}

function nodeOf(a: GraphAsset): DependencyNode {
  return { id: a.id, name: a.name, kind: a.connectorKind ?? 'host', source: a.source, status: a.status };
}

function containerNode(c: GraphContainer): DependencyNode {
  return { id: c.id, name: c.name, kind: 'container', source: 'agent', status: c.state };
}

/**
 * Nodes in name order, edges deduplicated and sorted; only what `visible` (null: all) allows. A container
 * shows when the asset running it does.
 */
export function buildGraph(
  assets: readonly GraphAsset[],
  sources: readonly EdgeSource[],
  visible: ReadonlySet<string> | null,
  containers: readonly GraphContainer[] = [],
): DependencyGraph {
  const shown = assets.filter((a) => visible === null || visible.has(a.id));
  const ids = new Set(shown.map((a) => a.id));
  const shownContainers = containers.filter((c) => ids.has(c.assetId) && !ids.has(c.id));
  for (const c of shownContainers) ids.add(c.id);
  const seen = new Set<string>();
  const edges: DependencyEdge[] = [];
  for (const source of sources) {
    for (const e of source(assets)) {
      const key = `${e.from}|${e.to}|${e.type}|${e.link_id ?? ''}`;
      if (!ids.has(e.from) || !ids.has(e.to) || e.from === e.to || seen.has(key)) continue;
      seen.add(key);
      edges.push(e);
    }
  }
  edges.sort(
    (a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to) || a.type.localeCompare(b.type),
  );
  return {
    nodes: [...shown.map(nodeOf), ...shownContainers.map(containerNode)].sort(
      (a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
    ),
    edges,
  };
}
