import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { helloAddresses } from './main.js';

function nic(address: string, cidr: string | null, mac: string, internal = false): NetworkInterfaceInfo {
  const v6 = address.includes(':');
  return v6
    ? { address, cidr, mac, internal, family: 'IPv6', netmask: 'ffff:ffff:ffff:ffff::', scopeid: 0 }
    : { address, cidr, mac, internal, family: 'IPv4', netmask: '255.255.255.0' };
}

describe('hello addresses', () => {
  it('reports each address with its prefix, leaving out loopback', () => {
    const reported = helloAddresses({
      lo: [nic('127.0.0.1', '127.0.0.1/8', '00:00:00:00:00:00', true)],
      eth0: [
        nic('192.168.1.20', '192.168.1.20/23', 'AA:BB:CC:00:00:01'),
        nic('fd00::20', 'fd00::20/64', 'AA:BB:CC:00:00:01'),
      ],
      wg0: [nic('10.9.0.2', null, '00:00:00:00:00:00')],
    });

    expect(reported).toEqual({
      ip_addresses: ['192.168.1.20', 'fd00::20', '10.9.0.2'],
      mac_addresses: ['aa:bb:cc:00:00:01'],
      interfaces: [
        { address: '192.168.1.20', prefix: 23 },
        { address: 'fd00::20', prefix: 64 },
      ],
    });
  });
});
