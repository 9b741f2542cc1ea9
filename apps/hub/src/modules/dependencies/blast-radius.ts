/**
 * The blast radius of a node, a pure function of a graph (decision 0080): breadth first over "depends on"
 * links, so each dependent is found once, at its shortest depth, whatever cycles the graph holds.
 *
 * Edges do not all point the same way: a hypervisor `hosts` its guest, a node `stores` its storage and a host
 * `runs` its container (from: what is depended on, to: the dependent), while a `declared` link is drawn from
 * the dependent to what it depends on ("from depends on to"). A backup server `backs_up` a guest, and the
 * guest keeps running when the backup server stops: no runtime dependency, not followed.
 */
import {
  blastRadiusLimits,
  type BlastRadius,
  type BlastRadiusDependent,
  type DependencyEdge,
  type DependencyEdgeType,
  type DependencyGraph,
} from '@svc/protocol';

/** Who depends on whom through one edge; null when the edge is no runtime dependency. */
function dependencyOf(edge: DependencyEdge): { provider: string; dependent: string } | null {
  switch (edge.type) {
    case 'hosts':
    case 'stores':
    case 'runs':
      return { provider: edge.from, dependent: edge.to };
    case 'declared':
      return { provider: edge.to, dependent: edge.from };
    case 'backs_up':
      return null;
  }
}

interface Reached {
  depth: number;
  parent: string;
  via: DependencyEdgeType;
}

export function blastRadius(
  graph: DependencyGraph,
  rootId: string,
  options: { maxDepth?: number; maxListed?: number } = {},
): BlastRadius {
  const maxDepth = options.maxDepth ?? blastRadiusLimits.defaultDepth;
  const maxListed = options.maxListed ?? blastRadiusLimits.maxListed;
  const dependents = new Map<string, { id: string; via: DependencyEdgeType }[]>();
  for (const edge of graph.edges) {
    const link = dependencyOf(edge);
    if (!link) continue;
    const list = dependents.get(link.provider) ?? [];
    list.push({ id: link.dependent, via: edge.type });
    dependents.set(link.provider, list);
  }
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const reached = new Map<string, Reached>();
  let frontier = [rootId];
  let depthLimited = false;
  // Each node enters the frontier once (it is marked reached first), so this ends within |nodes| steps.
  for (let depth = 1; frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const d of dependents.get(id) ?? []) {
        if (d.id === rootId || reached.has(d.id) || !nodes.has(d.id)) continue;
        if (depth > maxDepth) {
          depthLimited = true;
          continue;
        }
        reached.set(d.id, { depth, parent: id, via: d.via });
        next.push(d.id);
      }
    }
    if (depth > maxDepth) break;
    frontier = next;
  }

  const pathTo = (id: string): string[] => {
    const path = [id];
    let at = reached.get(id);
    // Parents lead back to the root in at most maxDepth steps.
    while (at && path.length <= maxDepth) {
      path.unshift(at.parent);
      at = reached.get(at.parent);
    }
    return path;
  };
  const all: BlastRadiusDependent[] = [...reached].map(([id, r]) => {
    const node = nodes.get(id);
    return {
      id,
      name: node?.name ?? id,
      kind: node?.kind ?? 'host',
      status: node?.status ?? 'unknown',
      depth: r.depth,
      path: [],
      via: r.via,
    };
  });
  all.sort((a, b) => a.depth - b.depth || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  const listed = all.slice(0, maxListed).map((d) => ({ ...d, path: pathTo(d.id) }));
  const containers = all.filter((d) => d.kind === 'container').length;
  return {
    asset_id: rootId,
    dependents: listed,
    total: all.length,
    assets: all.length - containers,
    containers,
    direct: all.filter((d) => d.depth === 1).length,
    max_depth: maxDepth,
    depth_limited: depthLimited,
    truncated: listed.length < all.length,
  };
}
