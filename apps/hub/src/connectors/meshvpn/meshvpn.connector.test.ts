import { describe, expect, it } from 'vitest';
import { describeServe, describeServeConfig, unavailableReasonOf } from './meshvpn.connector.js';
import { parseTailscaleServeStatus, parseTailscaleStatus } from './meshvpn.upstream.js';

const now = new Date('2026-11-25T22:00:00.000Z');

const running = {
  Version: '1.90.6-t0123456789',
  BackendState: 'Running',
  TailscaleIPs: ['100.101.102.103', 'fd7a:115c:a1e0::1'],
  Self: { HostName: 'hub', DNSName: 'hub.tail1234.ts.net.', CapMap: {} },
  CurrentTailnet: { Name: 'me@example.com', MagicDNSSuffix: 'tail1234.ts.net', MagicDNSEnabled: true },
  MagicDNSSuffix: 'tail1234.ts.net',
  CertDomains: ['hub.tail1234.ts.net'],
  Peer: null,
};

describe('tailscale status', () => {
  it('takes the HTTPS name from CertDomains[0] and strips the DNS name of its trailing dot', () => {
    const status = parseTailscaleStatus(JSON.stringify(running));
    expect(status).not.toBeNull();
    if (!status) return;
    expect(describeServe(status, null, now)).toMatchObject({
      available: true,
      reason: null,
      https_host: 'hub.tail1234.ts.net',
      https_enabled: true,
      dns_name: 'hub.tail1234.ts.net',
      tailnet: 'me@example.com',
      tailscale_ips: ['100.101.102.103', 'fd7a:115c:a1e0::1'],
      serve: { configured: false },
    });
  });

  it('says HTTPS is off when the tailnet has no certificate domains', () => {
    const status = parseTailscaleStatus(JSON.stringify({ ...running, CertDomains: null }));
    if (!status) throw new Error('unparsed');
    expect(describeServe(status, null, now)).toMatchObject({ https_host: null, https_enabled: false });
  });

  it.each([
    ['Running', null],
    ['NeedsLogin', 'not_logged_in'],
    ['NeedsMachineAuth', 'not_logged_in'],
    ['Stopped', 'stopped'],
    ['NoState', 'daemon_not_running'],
    ['Starting', 'error'],
  ])('backend state %s → %s', (state, reason) => {
    expect(unavailableReasonOf(state)?.reason ?? null).toBe(reason);
  });

  it('refuses output that is not the status shape', () => {
    expect(parseTailscaleStatus('not json')).toBeNull();
    expect(parseTailscaleStatus('{"Self":{}}')).toBeNull();
    expect(parseTailscaleStatus('{"BackendState":1}')).toBeNull();
  });
});

describe('tailscale serve status', () => {
  it.each([
    ['never configured (null)', 'null'],
    ['after a reset ({})', '{}'],
  ])('%s is nothing served', (_name, text) => {
    const serve = parseTailscaleServeStatus(text);
    expect(serve).not.toBeUndefined();
    if (serve === undefined) return;
    expect(describeServeConfig(serve)).toEqual({
      configured: false,
      foreground: false,
      funnel: false,
      tcp_ports: [],
      handlers: [],
    });
  });

  it('reads a background HTTPS proxy, funnel, and a foreground session', () => {
    const serve = parseTailscaleServeStatus(
      JSON.stringify({
        TCP: { '443': { HTTPS: true } },
        Web: {
          'hub.tail1234.ts.net:443': { Handlers: { '/': { Proxy: 'https+insecure://127.0.0.1:8443' } } },
        },
        AllowFunnel: { 'hub.tail1234.ts.net:443': true },
        Foreground: {
          abc123: {
            TCP: { '8080': { HTTP: true } },
            Web: {
              'hub.tail1234.ts.net:8080': {
                Handlers: { '/docs': { Path: '/srv/docs' }, '/hi': { Text: 'hello' } },
              },
            },
          },
        },
      }),
    );
    if (serve === undefined) throw new Error('unparsed');
    expect(describeServeConfig(serve)).toEqual({
      configured: true,
      foreground: true,
      funnel: true,
      tcp_ports: [443, 8080],
      handlers: [
        {
          listener: 'hub.tail1234.ts.net:443',
          path: '/',
          kind: 'proxy',
          target: 'https+insecure://127.0.0.1:8443',
        },
        { listener: 'hub.tail1234.ts.net:8080', path: '/docs', kind: 'path', target: '/srv/docs' },
        { listener: 'hub.tail1234.ts.net:8080', path: '/hi', kind: 'text', target: 'hello' },
      ],
    });
  });

  it('refuses a shape it does not know', () => {
    expect(parseTailscaleServeStatus('{"TCP":[1,2]}')).toBeUndefined();
    expect(parseTailscaleServeStatus('{')).toBeUndefined();
  });
});
