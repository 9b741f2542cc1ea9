import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { hasJsonRpc, toNasDatasets, toNasPool } from './nas.mapping.js';
import { TruenasDatasets, TruenasPool, type TruenasDataset } from './nas.upstream.js';

const size = (n: number, human: string) => ({ parsed: n, rawvalue: String(n), value: human, source: 'NONE' });

describe('TrueNAS pools', () => {
  it.each([
    [
      'healthy, scrubbed',
      {
        id: 1,
        name: 'tank',
        guid: '1234',
        status: 'ONLINE',
        healthy: true,
        size: 8e12,
        allocated: 3e12,
        free: 5e12,
        fragmentation: '3',
        scan: { function: 'SCRUB', state: 'FINISHED', errors: 0 },
      },
      {
        id: '1',
        used_percent: 37.5,
        size_bytes: 8e12,
        last_scan: { function: 'SCRUB', state: 'FINISHED', errors: 0 },
      },
    ],
    [
      'offline: sizes null, never scanned',
      {
        id: 2,
        name: 'cold',
        status: 'OFFLINE',
        healthy: false,
        size: null,
        allocated: null,
        free: null,
        scan: null,
      },
      { size_bytes: null, allocated_bytes: null, free_bytes: null, used_percent: null, last_scan: null },
    ],
  ])('%s', (_name, record, expected) => {
    expect(Value.Check(TruenasPool, record)).toBe(true);
    expect(toNasPool(record)).toMatchObject(expected);
  });

  it('refuses a pool whose id is not an integer', () => {
    expect(Value.Check(TruenasPool, { id: '1', name: 'x', status: 'ONLINE', healthy: true })).toBe(false);
  });
});

describe('TrueNAS datasets', () => {
  const flat: TruenasDataset[] = [
    {
      id: 'tank',
      type: 'FILESYSTEM',
      pool: 'tank',
      encrypted: false,
      locked: false,
      mountpoint: '/mnt/tank',
      used: size(3e12, '2.7T'),
      available: size(4.7e12, '4.3T'),
      // flat=true: the child is listed at top level AND under its parent.
      ...{ children: [{ id: 'tank/media', used: size(2.2e12, '2.0T') }] },
    },
    {
      id: 'tank/media',
      type: 'FILESYSTEM',
      pool: 'tank',
      mountpoint: '/mnt/tank/media',
      used: size(2.2e12, '2.0T'),
      available: size(4.7e12, '4.3T'),
    },
    {
      id: 'tank/vm',
      type: 'VOLUME',
      pool: 'tank',
      encrypted: true,
      locked: true,
      mountpoint: null,
      used: { parsed: '68719476736', value: '64G' },
      available: { parsed: null, value: null },
    },
  ];

  it('reads bytes from parsed, never from the human value, and lists each dataset once', () => {
    expect(Value.Check(TruenasDatasets, flat)).toBe(true);
    expect(toNasDatasets([...flat, flat[1] as TruenasDataset])).toEqual([
      {
        id: 'tank',
        pool: 'tank',
        type: 'filesystem',
        used_bytes: 3e12,
        available_bytes: 4.7e12,
        encrypted: false,
        locked: false,
        mountpoint: '/mnt/tank',
      },
      {
        id: 'tank/media',
        pool: 'tank',
        type: 'filesystem',
        used_bytes: 2.2e12,
        available_bytes: 4.7e12,
        encrypted: false,
        locked: false,
        mountpoint: '/mnt/tank/media',
      },
      {
        id: 'tank/vm',
        pool: 'tank',
        type: 'volume',
        used_bytes: 68719476736,
        available_bytes: null,
        encrypted: true,
        locked: true,
        mountpoint: null,
      },
    ]);
  });
});

describe('TrueNAS transport choice', () => {
  it.each([
    [['v25.04.0', 'v25.10.0'], true],
    [[], false],
  ])('%j → JSON-RPC %s', (versions, expected) => {
    expect(hasJsonRpc(versions)).toBe(expected);
  });
});
