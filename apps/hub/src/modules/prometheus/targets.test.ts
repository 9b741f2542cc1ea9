import { describe, expect, it } from 'vitest';
import type { Asset } from '@svc/protocol';
import { buildTargets } from './targets.js';

function asset(id: string, fields: Partial<Asset> = {}): Asset {
  return {
    id,
    name: `host-${id}`,
    hostname: null,
    platform: 'linux',
    status: 'online',
    source: 'manual',
    ip_addresses: [],
    mac_address: null,
    tags: [],
    description: null,
    last_seen_at: null,
    created_at: '2026-11-23T12:00:00.000Z',
    updated_at: '2026-11-23T12:00:00.000Z',
    agent: null,
    hub_host: false,
    ...fields,
  };
}

describe('Prometheus discovery targets', () => {
  it('takes the port from the asset tag, then the first-named group, then the default; addresses likewise', () => {
    const assets = [
      asset('a', { ip_addresses: ['10.0.0.1', '10.0.0.2'], tags: ['prometheus.port:9101'] }),
      asset('b', { hostname: 'b.lan' }),
      asset('c', { ip_addresses: ['fd00::5'], tags: ['prometheus.address:c.example'] }),
      asset('d', { ip_addresses: ['fd00::6'] }),
      asset('e'),
      asset('f', { ip_addresses: ['10.0.0.9'], tags: ['prometheus.skip'] }),
      asset('g', { ip_addresses: ['10.0.0.7'], tags: ['prometheus.port:99999'] }),
    ];
    const groups = new Map([
      ['a', [{ id: 'g1', name: 'web' }]],
      [
        'b',
        [
          { id: 'g2', name: 'zeta' },
          { id: 'g1', name: 'web' },
        ],
      ],
      ['c', [{ id: 'g2', name: 'zeta' }]],
    ]);
    const exporter = {
      default_port: 9100,
      group_ports: [
        { group_id: 'g1', port: 9200 },
        { group_id: 'g2', port: 9300 },
      ],
    };
    const out = buildTargets(assets, groups, exporter);
    expect(out.map((g) => g.targets[0])).toEqual([
      '10.0.0.1:9101',
      'b.lan:9200',
      'c.example:9300',
      '[fd00::6]:9100',
      '10.0.0.7:9100',
    ]);
    expect(out[1]?.labels).toEqual({
      asset_id: 'b',
      name: 'host-b',
      groups: ',web,zeta,',
      platform: 'linux',
      status: 'online',
    });
    expect(out[3]?.labels.groups).toBe('');
  });
});
