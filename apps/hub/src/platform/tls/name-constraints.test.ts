import { describe, expect, it } from 'vitest';
import {
  caNameConstraints,
  caNameProblem,
  constraintsBeyond,
  decodeNameConstraints,
  encodeNameConstraints,
  isNamePermitted,
} from './name-constraints.js';

/** The hub's own names (as defaultServerNames gives them) and what the operator added (SVC_TLS_CA_NAMES). */
const constraints = caNameConstraints(
  [
    'hub.example.net',
    'box',
    'localhost',
    '127.0.0.1',
    '::1',
    '203.0.113.7',
    '2001:db8::5',
    '10.1.2.3',
    'x.lan',
  ],
  ['lb.example.lan', '192.168.50.0/24', '192.168.50.9', '*.svc.internal', 'fd00:1::/64'],
);

describe("caNameConstraints: the hub's names and the operator's, nothing else (decision 0052)", () => {
  it.each([
    ['hub.example.net', true],
    ['api.hub.example.net', true],
    ['example.net', false],
    ['www.example.com', false],
    ['box', true],
    ['localhost', true],
    ['x.lan', true],
    ['router.lan', false],
    ['lan', false],
    ['printer.local', false],
    ['router.home.arpa', false],
    ['db.internal', false],
    ['svc.internal', true],
    ['a.svc.internal', true],
    ['lb.example.lan', true],
    ['other.example.lan', false],
    ['203.0.113.7', true],
    ['203.0.113.8', false],
    ['8.8.8.8', false],
    ['127.0.0.1', true],
    ['127.0.0.2', false],
    ['10.1.2.3', true],
    ['10.1.2.4', false],
    ['192.168.1.1', false],
    ['192.168.50.77', true],
    ['172.31.255.1', false],
    ['100.100.1.1', false],
    ['::1', true],
    ['2001:db8::5', true],
    ['2001:db8::6', false],
    ['fd00:1::9', true],
    ['fd12:3456::1', false],
    ['fe80::1', false],
  ])('%s permitted: %s', (name, permitted) => {
    expect(isNamePermitted(name, constraints)).toBe(permitted);
  });

  it('keeps one subtree per name, and no single address inside a listed range', () => {
    expect(constraints.dns).toEqual([
      'hub.example.net',
      'box',
      'localhost',
      'x.lan',
      'lb.example.lan',
      'svc.internal',
    ]);
    expect(constraints.ip).toEqual([
      { address: '127.0.0.1', prefix: 32 },
      { address: '::1', prefix: 128 },
      { address: '203.0.113.7', prefix: 32 },
      { address: '2001:db8::5', prefix: 128 },
      { address: '10.1.2.3', prefix: 32 },
      { address: '192.168.50.0', prefix: 24 },
      { address: 'fd00:1:0:0:0:0:0:0', prefix: 64 },
    ]);
  });

  it('accepts names, addresses and ranges in SVC_TLS_CA_NAMES, and says what is wrong with anything else', () => {
    for (const good of [
      'lb.example.lan',
      '*.hub.lan',
      'hub',
      '192.0.2.7',
      '192.0.2.0/24',
      'fd00::/8',
      'HUB.LAN.',
    ])
      expect([good, caNameProblem(good)]).toEqual([good, null]);
    for (const bad of ['hub lan', 'a..b', '10.0.0.0/33', '1.2.3.4/x', 'lan/8', '-hub.lan', 'https://hub.lan'])
      expect(caNameProblem(bad), bad).not.toBeNull();
  });

  it("lists what an older CA may sign beyond the hub's names: the whole local domains and private ranges", () => {
    const older = {
      dns: ['localhost', 'local', 'lan', 'home.arpa', 'internal', 'hub.example.net'],
      ip: [
        { address: '127.0.0.0', prefix: 8 },
        { address: '10.0.0.0', prefix: 8 },
        { address: '192.168.0.0', prefix: 16 },
        { address: '203.0.113.7', prefix: 32 },
      ],
    };
    expect(constraintsBeyond(older, constraints)).toEqual([
      'local',
      'lan',
      'home.arpa',
      'internal',
      '127.0.0.0/8',
      '10.0.0.0/8',
      '192.168.0.0/16',
    ]);
    expect(constraintsBeyond(constraints, constraints)).toEqual([]);
  });

  it('reads back what it writes (DER), and refuses what it cannot read', () => {
    const read = decodeNameConstraints(encodeNameConstraints(constraints));
    expect(read?.dns).toEqual(constraints.dns);
    expect(read?.ip.map((r) => r.prefix)).toEqual(constraints.ip.map((r) => r.prefix));
    for (const [name, expected] of [
      ['2001:db8::5', true],
      ['8.8.8.8', false],
      ['fe80::1', false],
      ['192.168.50.200', true],
    ] as const)
      expect(isNamePermitted(name, read!)).toBe(expected);
    expect(decodeNameConstraints(Buffer.from([0x30, 0x05, 0xa1, 0x03, 0x30, 0x01, 0x00]))).toBeNull();
    expect(decodeNameConstraints(Buffer.from([0x30, 0x7f]))).toBeNull();
  });
});
