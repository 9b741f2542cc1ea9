import { describe, expect, it } from 'vitest';
import { buildGraph, hostContainers, type GraphAsset, type GraphContainer } from './dependency-graph.js';

const asset = (id: string, name: string): GraphAsset => ({
  id,
  name,
  source: 'agent',
  status: 'online',
  hostname: null,
  connectorKind: null,
  parentId: null,
  facts: {},
});

const assets = [asset('ast_a', 'alpha'), asset('ast_b', 'beta')];
const containers: GraphContainer[] = [
  { id: 'ast_a:111', assetId: 'ast_a', name: 'web', state: 'running' },
  { id: 'ast_a:222', assetId: 'ast_a', name: 'db', state: 'exited' },
  { id: 'ast_b:333', assetId: 'ast_b', name: 'cache', state: 'running' },
];

describe('containers in the dependency graph', () => {
  it('adds a node per container and a runs edge from its host', () => {
    const graph = buildGraph(assets, [hostContainers(containers)], null, containers);
    expect(graph.nodes.map((n) => [n.id, n.kind, n.status])).toEqual([
      ['ast_a', 'host', 'online'],
      ['ast_b', 'host', 'online'],
      ['ast_b:333', 'container', 'running'],
      ['ast_a:222', 'container', 'exited'],
      ['ast_a:111', 'container', 'running'],
    ]);
    expect(graph.nodes.find((n) => n.id === 'ast_a:111')).toEqual({
      id: 'ast_a:111',
      name: 'web',
      kind: 'container',
      source: 'agent',
      status: 'running',
    });
    expect(graph.edges.map((e) => `${e.from}>${e.to}:${e.type}`)).toEqual([
      'ast_a>ast_a:111:runs',
      'ast_a>ast_a:222:runs',
      'ast_b>ast_b:333:runs',
    ]);
  });

  it('hides the containers of a host the caller may not see, and their edges', () => {
    const graph = buildGraph(assets, [hostContainers(containers)], new Set(['ast_a']), containers);
    expect(graph.nodes.map((n) => n.id)).toEqual(['ast_a', 'ast_a:222', 'ast_a:111']);
    expect(graph.edges.every((e) => e.from === 'ast_a')).toBe(true);
  });

  it('ignores containers of hosts that are not in the graph', () => {
    const stray: GraphContainer = { id: 'ast_z:1', assetId: 'ast_z', name: 'ghost', state: 'running' };
    const graph = buildGraph(assets, [hostContainers([stray])], null, [stray]);
    expect(graph.nodes.map((n) => n.id)).toEqual(['ast_a', 'ast_b']);
    expect(graph.edges).toEqual([]);
  });
});
