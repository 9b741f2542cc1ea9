import { describe, expect, it } from 'vitest';
import { checkAddress, defaultOutboundPolicy } from './outbound/address-policy.js';
import { formatIpv4, isLoopbackAddress, parseIpv4, parseIpv6, sourceKey } from './ip-address.js';

describe('parseIpv4', () => {
  it.each([
    ['0.0.0.0', 0],
    ['127.0.0.1', 0x7f000001],
    ['192.168.1.10', 0xc0a8010a],
    ['255.255.255.255', 0xffffffff],
  ])('reads %s', (text, value) => {
    expect(parseIpv4(text)).toBe(value);
    expect(formatIpv4(value)).toBe(text);
  });

  it.each([
    '',
    ' ',
    '127.1',
    '0x7f.1',
    '0x7f000001',
    '0177.0.0.1',
    '010.0.0.1',
    '2130706433',
    '127.0.0.1 ',
    ' 127.0.0.1',
    '127.0.0.1.',
    '256.0.0.1',
    '1.2.3.4.5',
    '1.2.3.-4',
    '1.2.3.4/24',
    '1.2.3.4:80',
    'user@127.0.0.1',
    '::1',
    '::ffff:127.0.0.1',
    '[::ffff:127.0.0.1]',
    '１２７.0.0.1',
    `${'1'.repeat(10_000)}.0.0.1`,
    '1.'.repeat(10_000),
  ])('refuses %j', (text) => {
    expect(parseIpv4(text)).toBeNull();
  });
});

describe('parseIpv6', () => {
  it.each([
    ['::', 0n],
    ['::1', 1n],
    ['::ffff:127.0.0.1', 0xffff7f000001n],
    ['::ffff:7f00:1', 0xffff7f000001n],
    ['fe80::1%eth0', (0xfe80n << 112n) | 1n],
    ['2001:db8::8:800:200c:417a', 0x20010db80000000000080800200c417an],
  ])('reads %s', (text, value) => {
    expect(parseIpv6(text)).toBe(value);
  });

  it.each([
    '',
    '[::1]',
    '::ffff:0x7f.1',
    '::ffff:127.1',
    '::ffff:999.0.0.1',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    '127.0.0.1',
    `${'1:'.repeat(5_000)}1`,
    'user@::1',
  ])('refuses %j', (text) => {
    expect(parseIpv6(text)).toBeNull();
  });
});

describe('the egress guard on garbage', () => {
  it.each([
    '',
    '127.1',
    '0x7f.1',
    '0177.0.0.1',
    '2130706433',
    '[::ffff:127.0.0.1]',
    '::ffff:127.0.0.1',
    '[::1]',
    '::ffff:0x7f.1',
    `${'1'.repeat(10_000)}.0.0.1`,
    'user@127.0.0.1',
  ])('never allows %j as an address', (text) => {
    expect(checkAddress(text, defaultOutboundPolicy).allowed).toBe(false);
  });
});

describe('sourceKey', () => {
  it('counts an IPv6 /64 as one source and an IPv4-mapped address (either form) as its IPv4', () => {
    expect(sourceKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('2001:0db8:0001:0002::')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(sourceKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(sourceKey('::ffff:c000:207')).toBe('192.0.2.7');
    expect(sourceKey('192.0.2.7')).toBe('192.0.2.7');
    expect(sourceKey('x'.repeat(100))).toBe('x'.repeat(64));
  });
});

describe('isLoopbackAddress', () => {
  it('takes 127.0.0.0/8, ::1 and mapped 127.x, and nothing that only looks like them', () => {
    for (const a of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1'])
      expect(isLoopbackAddress(a)).toBe(true);
    for (const a of ['127.1', '10.0.0.1', '::2', '::ffff:10.0.0.1', '127.0.0.1.example', '', undefined])
      expect(isLoopbackAddress(a)).toBe(false);
  });
});
