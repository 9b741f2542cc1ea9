/** Portainer records → the hub's stacks and endpoint assets. Pure. */
import type { StacksStack } from '@svc/protocol';
import type { PortainerEndpoint, PortainerStack } from './stacks.upstream.js';

const stackTypeNames = { 1: 'swarm', 2: 'compose', 3: 'kubernetes' } as const;
const endpointTypeNames: Record<number, string> = {
  1: 'docker',
  2: 'agent',
  3: 'azure',
  4: 'edge_agent',
  5: 'kubernetes_local',
  6: 'kubernetes_agent',
  7: 'edge_kubernetes',
};

function epoch(seconds: number | null | undefined): string | null {
  return typeof seconds === 'number' && seconds > 0 ? new Date(seconds * 1000).toISOString() : null;
}

function toStack(stack: PortainerStack): StacksStack {
  return {
    id: stack.Id,
    name: stack.Name,
    type: stack.Type === 1 || stack.Type === 2 || stack.Type === 3 ? stackTypeNames[stack.Type] : 'unknown',
    status: stack.Status === 1 ? 'active' : stack.Status === 2 ? 'inactive' : 'unknown',
    endpoint_id: stack.EndpointId,
    created_at: epoch(stack.CreationDate),
    updated_at: epoch(stack.UpdateDate),
    created_by: stack.CreatedBy ?? '',
    env_count: stack.Env?.length ?? 0,
  };
}

/** The stacks of one endpoint, sorted by name (the filter is applied here too: never trust the upstream's). */
export function stacksOfEndpoint(stacks: readonly PortainerStack[], endpointId: number): StacksStack[] {
  return stacks
    .filter((s) => s.EndpointId === endpointId)
    .map(toStack)
    .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
}

/** The endpoint as an asset's facts: its Portainer id (the key for its stacks), type and last snapshot. */
export function endpointFacts(endpoint: PortainerEndpoint): Record<string, string | number | boolean> {
  const snapshot = endpoint.Snapshots?.[0];
  return {
    endpoint_id: endpoint.Id,
    endpoint_type: endpointTypeNames[endpoint.Type] ?? 'unknown',
    ...(snapshot?.DockerVersion ? { docker_version: snapshot.DockerVersion } : {}),
    ...(typeof snapshot?.RunningContainerCount === 'number'
      ? { running_containers: snapshot.RunningContainerCount }
      : {}),
  };
}

export function endpointStatus(endpoint: PortainerEndpoint): 'online' | 'offline' {
  return endpoint.Status === 1 ? 'online' : 'offline';
}

/** `endpoint/3`: the external id of an endpoint asset, and back. */
export function endpointExternalId(id: number): string {
  return `endpoint/${String(id)}`;
}

export function endpointIdOf(externalId: string): number | null {
  const match = /^endpoint\/(\d+)$/.exec(externalId);
  return match ? Number(match[1]) : null;
}
