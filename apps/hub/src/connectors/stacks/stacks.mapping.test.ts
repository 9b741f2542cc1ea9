import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import {
  endpointFacts,
  endpointIdOf,
  endpointExternalId,
  endpointStatus,
  stacksOfEndpoint,
} from './stacks.mapping.js';
import { PortainerEndpoint, PortainerStacks, type PortainerStack } from './stacks.upstream.js';

const stack = (over: Partial<PortainerStack>): PortainerStack => ({
  Id: 1,
  Name: 's',
  Type: 2,
  EndpointId: 1,
  Status: 1,
  CreationDate: 1_761_000_000,
  UpdateDate: 0,
  Env: null,
  ...over,
});

describe('Portainer stacks', () => {
  it('maps integer enums and epoch seconds, 0 as never, null lists as empty, one endpoint only', () => {
    const stacks = [
      stack({ Id: 2, Name: 'media', Env: [{ name: 'TZ', value: 'UTC' }], UpdateDate: 1_763_500_000 }),
      stack({ Id: 5, Name: 'monitoring', Status: 2 }),
      stack({ Id: 7, Name: 'pihole', EndpointId: 3 }),
      stack({ Id: 9, Name: 'odd', Type: 9, Status: 0 }),
    ];
    expect(Value.Check(PortainerStacks, stacks)).toBe(true);
    expect(stacksOfEndpoint(stacks, 1)).toEqual([
      {
        id: 2,
        name: 'media',
        type: 'compose',
        status: 'active',
        endpoint_id: 1,
        created_at: '2025-10-20T22:40:00.000Z',
        updated_at: '2025-11-18T21:06:40.000Z',
        created_by: '',
        env_count: 1,
      },
      expect.objectContaining({ id: 5, status: 'inactive', updated_at: null, env_count: 0 }),
      expect.objectContaining({ id: 9, type: 'unknown', status: 'unknown' }),
    ]);
  });

  it('refuses a stack whose dates are strings (swagger-derived fixtures are wrong)', () => {
    expect(Value.Check(PortainerStacks, [{ ...stack({}), CreationDate: '2025-01-01' }])).toBe(false);
  });
});

describe('Portainer endpoints', () => {
  it('reads status, type and the last snapshot', () => {
    const endpoint = {
      Id: 3,
      Name: 'edge-pi',
      Type: 4,
      Status: 2,
      URL: '',
      Snapshots: [{ DockerVersion: '26.1.4', RunningContainerCount: 4 }],
    };
    expect(Value.Check(PortainerEndpoint, endpoint)).toBe(true);
    expect(endpointStatus(endpoint)).toBe('offline');
    expect(endpointFacts(endpoint)).toEqual({
      endpoint_id: 3,
      endpoint_type: 'edge_agent',
      docker_version: '26.1.4',
      running_containers: 4,
    });
    expect(endpointFacts({ ...endpoint, Snapshots: null })).toEqual({
      endpoint_id: 3,
      endpoint_type: 'edge_agent',
    });
  });

  it.each([
    ['endpoint/3', 3],
    ['endpoint/x', null],
    ['qemu/100', null],
  ])('external id %s → %s', (text, id) => {
    expect(endpointIdOf(text)).toBe(id);
  });

  it('round-trips an endpoint id', () => {
    expect(endpointIdOf(endpointExternalId(42))).toBe(42);
  });
});
