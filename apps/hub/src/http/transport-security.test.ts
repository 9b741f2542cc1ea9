/**
 * The transport rule and the client address, as every caller reads them: HTTP routes, WebSocket upgrades and the
 * agent channel all call these two functions.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createClientIpReader, createTransportCheck } from './transport-security.js';

const req = (remoteAddress: string, encrypted: boolean, headers: Record<string, string> = {}) =>
  ({ socket: { remoteAddress, encrypted }, headers }) as unknown as IncomingMessage;

describe('transport check', () => {
  it('counts TLS, loopback in disabled mode, and a trusted proxy saying https; nothing else', () => {
    const disabled = createTransportCheck({ tlsMode: 'disabled', trustedProxies: [] });
    const auto = createTransportCheck({ tlsMode: 'auto', trustedProxies: ['10.0.0.1'] });

    expect(disabled(req('127.0.0.1', false))).toBe(true);
    expect(disabled(req('::1', false))).toBe(true);
    expect(disabled(req('192.168.1.5', false))).toBe(false);
    expect(auto(req('127.0.0.1', false))).toBe(false);
    expect(auto(req('192.168.1.5', true))).toBe(true);
    expect(auto(req('10.0.0.1', false, { 'x-forwarded-proto': 'https' }))).toBe(true);
    // The last value is the trusted proxy's own; an earlier `https` may be the client's.
    expect(auto(req('10.0.0.1', false, { 'x-forwarded-proto': 'https, http' }))).toBe(false);
    expect(auto(req('10.0.0.2', false, { 'x-forwarded-proto': 'https' }))).toBe(false);
  });
});

describe('client address', () => {
  it('is the peer without trusted proxies, whatever X-Forwarded-For says', () => {
    const clientIp = createClientIpReader([]);

    expect(clientIp(req('192.0.2.10', false, { 'x-forwarded-for': '203.0.113.66' }))).toBe('192.0.2.10');
  });

  it('is the first untrusted hop from the right behind trusted proxies, never a spoofed value or a proxy', () => {
    const one = createClientIpReader(['10.0.0.1']);
    const chained = createClientIpReader(['10.0.0.1', '10.0.0.2']);
    const spoofed = { 'x-forwarded-for': '203.0.113.66, 198.51.100.7' };
    const viaTwo = { 'x-forwarded-for': '203.0.113.66, 198.51.100.7, 10.0.0.2' };

    expect(one(req('10.0.0.1', false, spoofed))).toBe('198.51.100.7');
    expect(chained(req('10.0.0.1', false, viaTwo))).toBe('198.51.100.7');
    expect(one(req('10.0.0.1', false))).toBe('10.0.0.1');
    expect(one(req('192.0.2.10', false, spoofed))).toBe('192.0.2.10');
  });
});
