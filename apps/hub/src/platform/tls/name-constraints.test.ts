import { describe, expect, it } from 'vitest';
import {
  caNameConstraints,
  decodeNameConstraints,
  encodeNameConstraints,
  isNamePermitted,
} from './name-constraints.js';

const constraints = caNameConstraints(
  ['hub.example.net', '203.0.113.7', '2001:db8::5', '10.1.2.3', 'x.lan'],
  'box.home.example.org',
);

describe('caNameConstraints', () => {
  it.each([
    ['hub.example.net', true],
    ['api.hub.example.net', true],
    ['example.net', false],
    ['www.example.com', false],
    ['printer.lan', true],
    ['nas.local', true],
    ['router.home.arpa', true],
    ['db.internal', true],
    ['localhost', true],
    ['box.home.example.org', true],
    ['other.home.example.org', true],
    ['example.org', false],
    ['203.0.113.7', true],
    ['203.0.113.8', false],
    ['8.8.8.8', false],
    ['127.0.0.1', true],
    ['172.31.255.1', true],
    ['172.32.0.1', false],
    ['100.100.1.1', true],
    ['::1', true],
    ['2001:db8::5', true],
    ['2001:db8::6', false],
    ['fd12:3456::1', true],
    ['2606:4700::1111', false],
  ])('%s permitted: %s', (name, permitted) => {
    expect(isNamePermitted(name, constraints)).toBe(permitted);
  });

  it('keeps one subtree per covered name (x.lan is under lan, 10.1.2.3 under 10/8)', () => {
    expect(constraints.dns).toEqual([
      'localhost',
      'local',
      'lan',
      'home.arpa',
      'internal',
      'hub.example.net',
      'home.example.org',
    ]);
    expect(constraints.ip.filter((r) => r.address === '10.1.2.3')).toEqual([]);
  });

  it('reads back what it writes (DER), and refuses what it cannot read', () => {
    const read = decodeNameConstraints(encodeNameConstraints(constraints));
    expect(read?.dns).toEqual(constraints.dns);
    expect(read?.ip.map((r) => r.prefix)).toEqual(constraints.ip.map((r) => r.prefix));
    for (const [name, expected] of [
      ['2001:db8::5', true],
      ['8.8.8.8', false],
      ['fe80::1', true],
    ] as const)
      expect(isNamePermitted(name, read!)).toBe(expected);
    expect(decodeNameConstraints(Buffer.from([0x30, 0x05, 0xa1, 0x03, 0x30, 0x01, 0x00]))).toBeNull();
    expect(decodeNameConstraints(Buffer.from([0x30, 0x7f]))).toBeNull();
  });
});
