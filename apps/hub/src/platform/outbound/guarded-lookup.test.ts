import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { defaultOutboundPolicy, type OutboundPolicy } from './address-policy.js';
import {
  createGuardedLookup,
  resolveAllowed,
  type ResolvedAddress,
  type Resolver,
} from './guarded-lookup.js';
import { OutboundRefused } from './outbound-refused.js';

function answering(addresses: readonly ResolvedAddress[]): Resolver & { calls: number } {
  const resolver = Object.assign(
    (): Promise<readonly ResolvedAddress[]> => {
      resolver.calls += 1;
      return Promise.resolve(addresses);
    },
    { calls: 0 },
  );
  return resolver;
}

const strict: OutboundPolicy = { ...defaultOutboundPolicy, allowPrivate: 'false' };

describe('resolveAllowed', () => {
  it('refuses the whole answer when any address is refused, wherever it sits', async () => {
    for (const order of [
      ['93.184.216.34', '10.0.0.5'],
      ['10.0.0.5', '93.184.216.34'],
    ]) {
      const resolver = answering(order.map((address) => ({ address, family: 4 })));
      await expect(resolveAllowed('mixed.test', strict, resolver)).rejects.toMatchObject({
        reason: 'blocked_address',
        address: '10.0.0.5',
      });
    }
  });

  it('answers every address when all are allowed', async () => {
    const addresses: ResolvedAddress[] = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ];

    expect(await resolveAllowed('public.test', strict, answering(addresses))).toEqual(addresses);
  });

  it('judges a literal without asking the resolver', async () => {
    const resolver = answering([]);

    await expect(resolveAllowed('::ffff:7f00:1', defaultOutboundPolicy, resolver)).rejects.toBeInstanceOf(
      OutboundRefused,
    );
    expect(await resolveAllowed('192.168.1.2', defaultOutboundPolicy, resolver)).toEqual([
      { address: '192.168.1.2', family: 4 },
    ]);
    expect(resolver.calls).toBe(0);
  });

  it('says dns_failed for a failed or empty lookup', async () => {
    const failing: Resolver = () => Promise.reject(new Error('ENOTFOUND'));

    await expect(resolveAllowed('gone.test', strict, failing)).rejects.toMatchObject({
      reason: 'dns_failed',
    });
    await expect(resolveAllowed('empty.test', strict, answering([]))).rejects.toMatchObject({
      reason: 'dns_failed',
    });
  });
});

describe('createGuardedLookup', () => {
  const both = answering([
    { address: '93.184.216.34', family: 4 },
    { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
  ]);

  function lookupWith(options: { all?: boolean; family?: number }): Promise<unknown[]> {
    const lookup = createGuardedLookup(() => strict, both);
    return new Promise((resolve) => {
      lookup('public.test', options, (error, address, family) => {
        resolve([error, address, family]);
      });
    });
  }

  it('answers a list for `all`, a single address otherwise, filtered by family', async () => {
    const [, list] = await lookupWith({ all: true });
    expect((list as LookupAddress[]).map((entry) => entry.address)).toEqual([
      '93.184.216.34',
      '2606:2800:220:1:248:1893:25c8:1946',
    ]);
    expect(await lookupWith({ family: 6 })).toEqual([null, '2606:2800:220:1:248:1893:25c8:1946', 6]);
    expect(await lookupWith({})).toEqual([null, '93.184.216.34', 4]);
  });

  it('reads the policy at each lookup', async () => {
    let policy: OutboundPolicy = defaultOutboundPolicy;
    const lookup = createGuardedLookup(() => policy, answering([{ address: '10.1.1.1', family: 4 }]));
    const ask = (): Promise<unknown> =>
      new Promise((resolve) => {
        lookup('nas.test', {}, (error) => {
          resolve(error);
        });
      });

    expect(await ask()).toBeNull();
    policy = strict;
    expect(await ask()).toBeInstanceOf(OutboundRefused);
  });
});
