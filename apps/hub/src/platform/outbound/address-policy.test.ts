import { describe, expect, it } from 'vitest';
import {
  checkAddress,
  classifyAddress,
  defaultOutboundPolicy,
  isHostAllowed,
  type AddressCategory,
  type OutboundPolicy,
} from './address-policy.js';

const table: [address: string, category: AddressCategory][] = [
  // IPv4, each range with its edges and the neighbours just outside
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['1.0.0.0', 'public'],
  ['9.255.255.255', 'public'],
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['11.0.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.64.0.0', 'private'],
  ['100.127.255.255', 'private'],
  ['100.128.0.0', 'public'],
  ['126.255.255.255', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.0.0.0', 'loopback'],
  ['127.255.255.255', 'loopback'],
  ['128.0.0.0', 'public'],
  ['169.253.255.255', 'public'],
  ['169.254.0.0', 'link_local'],
  ['169.254.169.254', 'link_local'],
  ['169.254.255.255', 'link_local'],
  ['169.255.0.0', 'public'],
  ['172.15.255.255', 'public'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', 'public'],
  ['192.0.0.170', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['192.167.255.255', 'public'],
  ['192.168.0.0', 'private'],
  ['192.168.255.255', 'private'],
  ['192.169.0.0', 'public'],
  ['198.18.0.1', 'private'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['223.255.255.255', 'public'],
  ['224.0.0.0', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.0', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  // IPv6
  ['::', 'unspecified'],
  ['0:0:0:0:0:0:0:0', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['[::1]', 'loopback'],
  ['fe80::', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link_local'],
  ['fec0::1', 'private'],
  ['fd00:ec2::254', 'link_local'],
  ['fd00:ec2::253', 'private'],
  ['fc00::', 'private'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
  ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'public'],
  ['fe00::', 'public'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['100::1', 'reserved'],
  ['2606:4700:4700::1111', 'public'],
  ['2a00:1450:4001:80b::200e', 'public'],
  // IPv4 inside IPv6: judged by the IPv4
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
  ['::ffff:169.254.169.254', 'link_local'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:255.255.255.255', 'broadcast'],
  ['::ffff:8.8.8.8', 'public'],
  ['::ffff:0:127.0.0.1', 'loopback'],
  ['::127.0.0.1', 'loopback'],
  ['::10.0.0.1', 'private'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a9fe:a9fe', 'link_local'],
  ['64:ff9b::808:808', 'public'],
  ['64:ff9b:1::1', 'private'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:a9fe:a9fe::1', 'link_local'],
  ['2002:c0a8:101::1', 'private'],
  ['2002:808:808::1', 'public'],
  // Teredo: server 65.54.227.120 (public), client 127.0.0.1 stored inverted (80ff:fffe)
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public'],
  // Not addresses
  ['localhost', 'invalid'],
  ['', 'invalid'],
  ['127.1', 'invalid'],
  ['0x7f000001', 'invalid'],
  ['2130706433', 'invalid'],
  ['1.2.3.4.5', 'invalid'],
  ['::ffff:999.0.0.1', 'invalid'],
];

describe('classifyAddress', () => {
  it.each(table)('%s is %s', (address, category) => {
    expect(classifyAddress(address)).toBe(category);
  });
});

const strict: OutboundPolicy = { ...defaultOutboundPolicy, allowPrivate: 'false' };
const open: OutboundPolicy = {
  allowPrivate: 'true',
  allowLoopback: true,
  allowLinkLocal: true,
  allowInsecure: true,
  hostAllowlist: null,
};

describe('checkAddress', () => {
  const cases: [address: string, policy: OutboundPolicy, allowed: boolean][] = [
    // default (auto): private allowed, loopback and link-local refused
    ['192.168.1.10', defaultOutboundPolicy, true],
    ['10.0.0.1', defaultOutboundPolicy, true],
    ['fd12:3456::1', defaultOutboundPolicy, true],
    ['127.0.0.1', defaultOutboundPolicy, false],
    ['::1', defaultOutboundPolicy, false],
    ['::ffff:127.0.0.1', defaultOutboundPolicy, false],
    ['169.254.169.254', defaultOutboundPolicy, false],
    ['fd00:ec2::254', defaultOutboundPolicy, false],
    ['fe80::1', defaultOutboundPolicy, false],
    ['8.8.8.8', defaultOutboundPolicy, true],
    // false: private refused too
    ['192.168.1.10', strict, false],
    ['100.64.0.1', strict, false],
    ['fc00::1', strict, false],
    ['::ffff:172.16.0.1', strict, false],
    ['8.8.8.8', strict, true],
    // true: private allowed, loopback still needs its own opt-in
    ['172.20.0.5', { ...defaultOutboundPolicy, allowPrivate: 'true' }, true],
    ['127.0.0.1', { ...defaultOutboundPolicy, allowPrivate: 'true' }, false],
    // each opt-in opens its own range only
    ['127.0.0.1', { ...strict, allowLoopback: true }, true],
    ['169.254.169.254', { ...strict, allowLoopback: true }, false],
    ['169.254.169.254', { ...strict, allowLinkLocal: true }, true],
    ['127.0.0.1', { ...strict, allowLinkLocal: true }, false],
    // always refused, whatever is opted in
    ['0.0.0.0', open, false],
    ['::', open, false],
    ['224.0.0.1', open, false],
    ['ff02::1', open, false],
    ['255.255.255.255', open, false],
    ['240.0.0.1', open, false],
    ['not-an-ip', open, false],
  ];
  it.each(cases)('%s under %j → allowed %s', (address, policy, allowed) => {
    expect(checkAddress(address, policy).allowed).toBe(allowed);
  });

  it('returns a verdict naming the category instead of throwing', () => {
    expect(checkAddress('169.254.169.254', defaultOutboundPolicy)).toEqual({
      allowed: false,
      address: '169.254.169.254',
      category: 'link_local',
    });
  });
});

describe('isHostAllowed', () => {
  const allowlist = ['api.example.net', '*.svc.example.net'];
  it.each([
    ['api.example.net', true],
    ['API.Example.NET.', true],
    ['nas.svc.example.net', true],
    ['svc.example.net', false],
    ['evilsvc.example.net', false],
    ['api.example.net.evil.test', false],
    ['example.net', false],
  ])('%s → %s', (host, allowed) => {
    expect(isHostAllowed(host, allowlist)).toBe(allowed);
  });

  it('allows every name when there is no allowlist', () => {
    expect(isHostAllowed('anything.test', null)).toBe(true);
  });
});
