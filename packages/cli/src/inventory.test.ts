import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Asset, Group } from '@svc/protocol';
import {
  buildInventory,
  connectAddress,
  inventoryHostJson,
  inventoryListJson,
  safeGroupName,
  safeHostName,
} from './inventory.js';

const idTail = (n: number) => String(n).padStart(26, '0');
const assetId = (n: number) => `ast_${idTail(n)}`;
const groupId = (n: number) => `grp_${idTail(n)}`;

function asset(n: number, name: string, partial: Partial<Asset> = {}): Asset {
  return {
    id: assetId(n),
    name,
    hostname: null,
    platform: 'linux',
    status: 'online',
    source: 'manual',
    ip_addresses: [],
    mac_address: null,
    tags: [],
    description: null,
    last_seen_at: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    agent: null,
    hub_host: false,
    ...partial,
  };
}

function group(n: number, name: string, members: number[]): Group {
  return {
    id: groupId(n),
    name,
    description: null,
    asset_ids: members.map(assetId),
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
}

/** What Ansible 2.14 calls an invalid group name (`C.INVALID_VARIABLE_NAMES`, ASCII only here). */
const invalidGroupName = /^[\d\W]|[^\w]/;
/** Characters Ansible's host patterns read as operators, separators, globs or ranges. */
const patternCharacters = /[\s,:!&*?[\]~'"\\/()]/;

describe('safeGroupName', () => {
  it.each([
    ['web', 'web'],
    ['Web Servers', 'web_servers'],
    ['db-primary', 'db_primary'],
    ['prod: eu/west', 'prod_eu_west'],
    ['  --edge--  ', 'edge'],
    ['2nd floor', '_2nd_floor'],
    ['Küche & Bad', 'kuche_bad'],
    ['__proto__', 'proto'],
    ['日本', ''],
  ])('%j → %j', (name, safe) => {
    expect(safeGroupName(name)).toBe(safe);
  });

  it('gives names Ansible takes without a warning, for any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120, unit: 'binary' }), (name) => {
        const safe = safeGroupName(name);
        expect(safe === '' || !invalidGroupName.test(safe)).toBe(true);
        expect(safe).toMatch(/^[a-z0-9_]*$/);
      }),
    );
  });
});

describe('safeHostName', () => {
  it.each([
    ['web-1', 'web-1'],
    ['Web Server 1', 'web-server-1'],
    ['nas.lan', 'nas.lan'],
    ['db[0:3]', 'db-0-3'],
    ['~regex*', 'regex'],
    ['a,b:c!d&e', 'a-b-c-d-e'],
    ['.hidden.', 'hidden'],
    ['Café', 'cafe'],
    ['🙂', ''],
  ])('%j → %j', (name, safe) => {
    expect(safeHostName(name)).toBe(safe);
  });

  it('gives names no pattern character splits, for any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120, unit: 'binary' }), (name) => {
        const safe = safeHostName(name);
        expect(safe).toMatch(/^[a-z0-9._-]*$/);
        expect(patternCharacters.test(safe)).toBe(false);
        expect(safe).not.toMatch(/^[-.]|[-.]$/);
      }),
    );
  });
});

describe('connectAddress', () => {
  it('takes the first IPv4 address that is not link-local', () => {
    expect(connectAddress({ ip_addresses: ['169.254.1.2', 'fd00::5', '10.0.0.5'], hostname: 'h' })).toBe(
      '10.0.0.5',
    );
  });

  it('then an IPv6 address that is not link-local, then the hostname, else none', () => {
    expect(connectAddress({ ip_addresses: ['fe80::1', '2001:db8::7'], hostname: 'h' })).toBe('2001:db8::7');
    expect(connectAddress({ ip_addresses: ['fe80::1'], hostname: 'nas.lan' })).toBe('nas.lan');
    expect(connectAddress({ ip_addresses: [], hostname: null })).toBeNull();
  });
});

describe('buildInventory', () => {
  it('makes a group of each hub group, ungrouped of the rest, and every host’s variables in _meta', () => {
    const assets = [
      asset(1, 'Web 1', { ip_addresses: ['10.0.0.1'], tags: ['prod'], hostname: 'web1' }),
      asset(2, 'db', { platform: 'freebsd', status: 'offline', hostname: 'db.lan' }),
      asset(3, 'lonely'),
    ];
    const listed = inventoryListJson(
      buildInventory(assets, [group(1, 'Web Servers', [1]), group(2, 'all-dbs', [2, 1])]),
    );
    expect(listed).toEqual({
      web_servers: {
        hosts: ['web-1'],
        vars: { svc_group_id: groupId(1), svc_group_name: 'Web Servers' },
        children: [],
      },
      all_dbs: {
        hosts: ['db', 'web-1'],
        vars: { svc_group_id: groupId(2), svc_group_name: 'all-dbs' },
        children: [],
      },
      ungrouped: { hosts: ['lonely'], vars: {}, children: [] },
      _meta: {
        hostvars: {
          'web-1': {
            ansible_host: '10.0.0.1',
            svc_id: assetId(1),
            svc_name: 'Web 1',
            svc_hostname: 'web1',
            svc_platform: 'linux',
            svc_status: 'online',
            svc_tags: ['prod'],
            svc_ip_addresses: ['10.0.0.1'],
          },
          db: {
            ansible_host: 'db.lan',
            svc_id: assetId(2),
            svc_name: 'db',
            svc_hostname: 'db.lan',
            svc_platform: 'freebsd',
            svc_status: 'offline',
            svc_tags: [],
            svc_ip_addresses: [],
          },
          lonely: {
            svc_id: assetId(3),
            svc_name: 'lonely',
            svc_hostname: null,
            svc_platform: 'linux',
            svc_status: 'online',
            svc_tags: [],
            svc_ip_addresses: [],
          },
        },
      },
    });
  });

  it('appends the id to every name two assets share, and keeps the others as they are', () => {
    const inventory = buildInventory([asset(1, 'web'), asset(2, 'Web'), asset(3, 'db')], []);
    expect([...inventory.hostvars.keys()].sort()).toEqual(['db', `web_${assetId(1)}`, `web_${assetId(2)}`]);
  });

  it('never gives a name that ends like a generated one to an asset without its own id', () => {
    const inventory = buildInventory([asset(1, 'web'), asset(2, 'web'), asset(3, `web_${assetId(1)}`)], []);
    const names = [...inventory.hostvars.keys()];
    expect(new Set(names).size).toBe(3);
    expect(inventory.hostvars.get(`web_${assetId(1)}`)?.svc_id).toBe(assetId(1));
  });

  it('names an asset or group by its id when nothing of its name is safe', () => {
    const inventory = buildInventory([asset(1, '🙂')], [group(1, '日本', [1])]);
    expect([...inventory.groups.keys()]).toEqual([groupId(1), 'ungrouped']);
    expect(inventory.groups.get(groupId(1))?.hosts).toEqual([assetId(1)]);
  });

  it("keeps Ansible's own groups: a hub group called all or ungrouped gets its id", () => {
    const inventory = buildInventory(
      [asset(1, 'a'), asset(2, 'b')],
      [group(1, 'All', [1]), group(2, 'ungrouped', [1]), group(3, 'web', [1]), group(4, 'WEB', [1])],
    );
    expect([...inventory.groups.keys()]).toEqual([
      `all_${groupId(1)}`,
      `ungrouped_${groupId(2)}`,
      `web_${groupId(3)}`,
      `web_${groupId(4)}`,
      'ungrouped',
    ]);
    expect(inventory.groups.get('ungrouped')?.hosts).toEqual(['b']);
  });

  it('leaves out members it was not given (an asset made while the pages were read)', () => {
    const inventory = buildInventory([asset(1, 'a')], [group(1, 'g', [1, 2])]);
    expect(inventory.groups.get('g')?.hosts).toEqual(['a']);
  });

  it('keeps a host called __proto__ a host in the JSON', () => {
    const listed = inventoryListJson(buildInventory([asset(1, '__proto__')], []));
    const parsed = JSON.parse(JSON.stringify(listed)) as { _meta: { hostvars: Record<string, unknown> } };
    expect(Object.keys(parsed._meta.hostvars)).toEqual(['__proto__']);
  });

  it('gives unique names for any asset names', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 30 }), (names) => {
        const inventory = buildInventory(
          names.map((name, i) => asset(i, name)),
          [],
        );
        expect(inventory.hostvars.size).toBe(names.length);
      }),
    );
  });
});

describe('inventoryHostJson', () => {
  it("answers a host's variables, and {} for a name it does not have", () => {
    const inventory = buildInventory([asset(1, 'web', { ip_addresses: ['10.0.0.9'] })], []);
    expect(inventoryHostJson(inventory, 'web')).toMatchObject({
      ansible_host: '10.0.0.9',
      svc_id: assetId(1),
    });
    expect(inventoryHostJson(inventory, 'nope')).toEqual({});
    expect(inventoryHostJson(inventory, 'constructor')).toEqual({});
  });
});
