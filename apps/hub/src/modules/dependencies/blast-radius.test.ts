/** The blast radius as a pure function: edge directions, depth, cycles, bounds. */
import { describe, expect, it } from 'vitest';
import type { DependencyEdge, DependencyGraph } from '@svc/protocol';
import { blastRadius } from './blast-radius.js';

const node = (id: string, kind = 'host') => ({ id, name: id, kind, source: 'manual', status: 'online' });
const edge = (from: string, to: string, type: DependencyEdge['type']): DependencyEdge => ({
  from,
  to,
  type,
  link_id: null,
  label: null,
});
const graphOf = (ids: string[], edges: DependencyEdge[]): DependencyGraph => ({
  nodes: ids.map((id) => node(id, id.startsWith('c') ? 'container' : 'host')),
  edges,
});

describe('blastRadius', () => {
  it('follows hosts, stores and runs forward, declared links backward, and not backups', () => {
    const graph = graphOf(
      ['pve', 'vm', 'disk', 'app', 'c1', 'pbs'],
      [
        edge('pve', 'vm', 'hosts'),
        edge('pve', 'disk', 'stores'),
        edge('app', 'vm', 'declared'), // app depends on vm
        edge('vm', 'c1', 'runs'),
        edge('pbs', 'pve', 'backs_up'),
      ],
    );
    const r = blastRadius(graph, 'pve');
    expect(r.dependents.map((d) => [d.id, d.depth, d.via, d.path])).toEqual([
      ['disk', 1, 'stores', ['pve', 'disk']],
      ['vm', 1, 'hosts', ['pve', 'vm']],
      ['app', 2, 'declared', ['pve', 'vm', 'app']],
      ['c1', 2, 'runs', ['pve', 'vm', 'c1']],
    ]);
    expect(r).toMatchObject({ total: 4, assets: 3, containers: 1, direct: 2, truncated: false });
    // The backup server going down breaks nothing; what it backs up does not break it either.
    expect(blastRadius(graph, 'pbs').total).toBe(0);
    expect(blastRadius(graph, 'app').total).toBe(0);
  });

  it('ends on cycles, counting each dependent once at its shortest depth and never the asset itself', () => {
    const graph = graphOf(
      ['a', 'b', 'c'],
      [
        edge('b', 'a', 'declared'),
        edge('c', 'b', 'declared'),
        edge('a', 'c', 'declared'),
        edge('c', 'a', 'declared'),
      ],
    );
    const r = blastRadius(graph, 'a');
    expect(r.dependents.map((d) => [d.id, d.depth])).toEqual([
      ['b', 1],
      ['c', 1],
    ]);
  });

  it('stops at the depth bound and says there is more; lists at most maxListed, counting all', () => {
    const ids = Array.from({ length: 30 }, (_, i) => `n${String(i)}`);
    const chain = ids.slice(1).map((id, i) => edge(ids[i] ?? '', id, 'hosts'));
    const deep = blastRadius(graphOf(ids, chain), 'n0', { maxDepth: 5 });
    expect(deep).toMatchObject({ total: 5, depth_limited: true, max_depth: 5 });
    expect(deep.dependents.at(-1)?.path).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n5']);
    expect(blastRadius(graphOf(ids, chain), 'n0', { maxDepth: 20 }).depth_limited).toBe(true);
    expect(blastRadius(graphOf(ids.slice(0, 10), chain.slice(0, 9)), 'n0').depth_limited).toBe(false);

    const star = ids.slice(1).map((id) => edge('n0', id, 'hosts'));
    const cut = blastRadius(graphOf(ids, star), 'n0', { maxListed: 10 });
    expect(cut).toMatchObject({ total: 29, direct: 29, truncated: true });
    expect(cut.dependents).toHaveLength(10);
  });

  it('sees only the graph it is given: a dependent behind a node the caller may not see is not reached', () => {
    // The caller's graph (GET /dependencies) has no hidden node and no edge touching one.
    const visible = graphOf(['db', 'app'], []);
    expect(blastRadius(visible, 'db')).toMatchObject({ total: 0, dependents: [] });
  });
});
