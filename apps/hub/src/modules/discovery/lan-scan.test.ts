import net from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultOutboundPolicy } from '../../platform/outbound/address-policy.js';
import { expandCidr, scanLan } from './lan-scan.js';

describe('LAN CIDRs', () => {
  it('expands a /24 to its 254 hosts and a /32 to itself', () => {
    const wide = expandCidr('192.168.1.0/24');
    expect('addresses' in wide && wide.addresses.length).toBe(254);
    expect('addresses' in wide && [wide.addresses[0], wide.addresses.at(-1)]).toEqual([
      '192.168.1.1',
      '192.168.1.254',
    ]);
    expect(expandCidr('127.0.0.1/32')).toEqual({ addresses: ['127.0.0.1'] });
  });

  it('refuses wider ranges, non-network addresses and nonsense', () => {
    expect(expandCidr('10.0.0.0/16')).toEqual({
      error: expect.stringContaining('/24 or narrower') as unknown,
    });
    expect(expandCidr('192.168.1.7/24')).toEqual({
      error: expect.stringContaining('192.168.1.0/24') as unknown,
    });
    expect(expandCidr('300.1.1.0/24')).toMatchObject({ error: expect.any(String) as unknown });
    expect(expandCidr('192.168.1.0/33')).toMatchObject({ error: expect.any(String) as unknown });
  });
});

describe('LAN probe (loopback only)', () => {
  let server: net.Server | undefined;
  afterEach(async () => {
    if (server) await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  it('finds an open port on loopback when the policy opts in, and refuses loopback otherwise', async () => {
    server = net.createServer((socket) => socket.destroy());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const open = (server.address() as net.AddressInfo).port;
    const closed = open === 65535 ? 65534 : open + 1;

    const allowed = await scanLan(['127.0.0.1'], {
      policy: { ...defaultOutboundPolicy, allowLoopback: true },
      ports: [open, closed],
      perSecond: 1000,
    });
    expect(allowed).toEqual({
      addresses: 1,
      probes: 2,
      refused: 0,
      hosts: [{ address: '127.0.0.1', ports: [open] }],
    });

    const refused = await scanLan(['127.0.0.1'], { policy: defaultOutboundPolicy, ports: [open] });
    expect(refused).toEqual({ addresses: 1, probes: 0, refused: 1, hosts: [] });
  });

  it('keeps to its pace and concurrency', async () => {
    let inFlight = 0;
    let most = 0;
    const started = Date.now();
    const result = await scanLan(
      Array.from({ length: 10 }, (_, i) => `192.168.50.${String(i + 1)}`),
      {
        policy: defaultOutboundPolicy,
        ports: [22, 80],
        concurrency: 4,
        perSecond: 100,
        connect: async () => {
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inFlight--;
          return false;
        },
      },
    );
    expect(result.probes).toBe(20);
    expect(most).toBeLessThanOrEqual(4);
    // 20 starts at 100 a second take at least 190 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(180);
  });
});
