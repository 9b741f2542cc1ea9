/**
 * The one vetting of a URL the hub will dial later: garbage, credentials and every spelling of a loopback or
 * private address are refused with a 400 naming the field, before anything is stored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HubError } from '../hub-error.js';
import { defaultOutboundPolicy, type OutboundPolicy } from './address-policy.js';
import { createOutboundClient, type OutboundClient } from './outbound-client.js';
import { vetOutboundUrl } from './outbound-url.js';

const clients: OutboundClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** A client whose resolver answers every name with `address`, so no test reaches real DNS. */
function client(policy: Partial<OutboundPolicy> = {}, address = '93.184.216.34'): OutboundClient {
  const created = createOutboundClient({
    policy: { ...defaultOutboundPolicy, allowPrivate: 'false', ...policy },
    resolver: () => Promise.resolve([{ address, family: address.includes(':') ? 6 : 4 }]),
  });
  clients.push(created);
  return created;
}

/** The field and problem of the 400, or `allowed`. */
async function verdict(
  text: string,
  outbound: OutboundClient = client(),
  baseOnly = false,
): Promise<{ field: string; problem: string } | 'allowed'> {
  try {
    await vetOutboundUrl(outbound, text, { field: 'url', baseOnly });
    return 'allowed';
  } catch (error) {
    if (!(error instanceof HubError) || error.code !== 'validation') throw error;
    const [detail] = (error.details ?? []) as { field: string; problem: string }[];
    return { field: detail?.field ?? '', problem: detail?.problem ?? '' };
  }
}

describe('vetOutboundUrl', () => {
  it('takes a public https URL and gives it back parsed', async () => {
    const url = await vetOutboundUrl(client(), 'https://hooks.example.net/in?x=1', { field: 'url' });

    expect(url.hostname).toBe('hooks.example.net');
  });

  it.each([
    '',
    ' ',
    'hooks.example.net/in',
    '//hooks.example.net',
    'https://',
    'http://[::1',
    'https://a b/',
  ])('refuses %j as not an absolute URL', async (text) => {
    expect(await verdict(text)).toEqual({ field: 'url', problem: 'not an absolute URL' });
  });

  it.each([
    'https://user:pass@hooks.example.net/',
    'https://user@hooks.example.net/',
    'https://:pass@hooks.example.net/',
    'https://hooks.example.net@127.0.0.1/',
  ])('refuses credentials in %j', async (text) => {
    expect(await verdict(text)).toMatchObject({
      field: 'url',
      problem: expect.stringContaining('credentials in the URL') as unknown,
    });
  });

  it.each([
    'https://127.0.0.1/',
    'https://127.1/',
    'https://0x7f.1/',
    'https://0x7f000001/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[0:0:0:0:0:ffff:127.0.0.1]/',
    'https://[64:ff9b::127.0.0.1]/',
    'https://10.0.0.1/',
    'https://[::ffff:10.0.0.1]/',
    'https://169.254.169.254/latest/meta-data',
    'https://[fe80::1]/',
    'https://0.0.0.0/',
    'https://[::]/',
  ])('refuses the loopback, private or link-local literal %j', async (text) => {
    expect(await verdict(text)).toMatchObject({
      field: 'url',
      problem: expect.stringContaining('refused by the egress guard') as unknown,
    });
  });

  it('refuses a name that resolves to loopback', async () => {
    expect(await verdict('https://rebind.example.net/', client({}, '127.0.0.1'))).toMatchObject({
      problem: expect.stringContaining('refused by the egress guard') as unknown,
    });
  });

  it('refuses plain http without the opt-in, and schemes the hub does not dial', async () => {
    for (const text of ['http://hooks.example.net/', 'ftp://hooks.example.net/', 'file:///etc/passwd']) {
      expect(await verdict(text), text).toMatchObject({
        problem: expect.stringContaining('refused by the egress guard') as unknown,
      });
    }
  });

  it('refuses an overlong host name without resolving it', async () => {
    let asked = 0;
    const outbound = createOutboundClient({
      policy: defaultOutboundPolicy,
      resolver: () => {
        asked += 1;
        return Promise.resolve([]);
      },
    });
    clients.push(outbound);

    const result = await verdict(`https://${'a'.repeat(70)}.${'b'.repeat(10_000)}.example/`, outbound);

    expect(result).not.toBe('allowed');
    expect(asked).toBeLessThanOrEqual(1);
  });

  it('refuses a query or fragment only for a base URL', async () => {
    expect(await verdict('https://pve.example.net/?x=1', client(), true)).toMatchObject({
      problem: expect.stringContaining('no query or fragment') as unknown,
    });
    expect(await verdict('https://pve.example.net/#top', client(), true)).toMatchObject({
      problem: expect.stringContaining('no query or fragment') as unknown,
    });
    expect(await verdict('https://pve.example.net/api?x=1')).toBe('allowed');
  });
});
