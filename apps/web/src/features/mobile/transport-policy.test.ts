import { describe, expect, it } from 'vitest';
import {
  allowanceAfterHubChange,
  allowsUntrustedTls,
  answerAction,
  artifactStores,
  checkHubOrigin,
  checkRequestUrl,
  minimumTlsVersion,
  signOutArtifacts,
  unauthorizedArtifacts,
} from './transport-policy';

describe('rule 1 and 2: the hub URL is an origin, https but for loopback', () => {
  it.each([
    ['https://hub.example.net', 'https://hub.example.net'],
    ['https://hub.example.net/', 'https://hub.example.net'],
    ['https://hub.example.net:8443', 'https://hub.example.net:8443'],
    ['https://10.0.0.5:8443', 'https://10.0.0.5:8443'],
    ['HTTPS://Hub.Example.NET', 'https://hub.example.net'],
    ['http://localhost:8080', 'http://localhost:8080'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://[::1]:8080', 'http://[::1]:8080'],
    ['  https://hub.example.net  ', 'https://hub.example.net'],
  ])('accepts %s as %s', (input, origin) => {
    expect(checkHubOrigin(input)).toEqual({ ok: true, origin });
  });

  it.each([
    ['https://admin:secret@hub.example.net', /user name or password/],
    ['https://admin@hub.example.net', /user name or password/],
    ['https://hub.example.net/api/v2', /path/],
    ['https://hub.example.net/console/', /path/],
    ['https://hub.example.net?token=abc', /query/],
    ['https://hub.example.net/?x=1', /query/],
    ['https://hub.example.net#top', /fragment/],
    ['http://hub.example.net', /only for a hub on this device/],
    ['http://10.0.0.5:8080', /only for a hub on this device/],
    ['http://127.0.0.2:8080', /only for a hub on this device/],
    ['http://localhost.example.net', /only for a hub on this device/],
    ['ftp://hub.example.net', /not http or https/],
    ['ws://localhost:8080', /not http or https/],
    ['hub.example.net', /not an absolute URL/],
    ['', /not an absolute URL/],
  ])('refuses %s', (input, problem) => {
    const result = checkHubOrigin(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toMatch(problem);
  });
});

describe('every request goes to the selected hub only', () => {
  it.each([
    ['/api/v2/assets', 'https://hub.example.net', true],
    ['https://hub.example.net/api/v2/alerts?status=active', 'https://hub.example.net', true],
    ['https://evil.example.net/api/v2/assets', 'https://hub.example.net', false],
    ['http://hub.example.net/api/v2/assets', 'https://hub.example.net', false],
    ['https://hub.example.net:9443/api/v2/assets', 'https://hub.example.net', false],
    ['https://u:p@hub.example.net/api/v2/assets', 'https://hub.example.net', false],
    ['/api/v2/assets', 'http://hub.example.net', false],
    ['/api/v2/assets', 'http://localhost:8080', true],
  ])('%s to hub %s: %s', (url, hub, ok) => {
    expect(checkRequestUrl(url, hub).ok).toBe(ok);
  });
});

describe('rule 3: every artifact is kept on this device', () => {
  it('keeps each one in a store of the browser profile, none synced', () => {
    for (const artifact of signOutArtifacts) {
      expect(['cookie', 'local', 'indexeddb', 'cache', 'push']).toContain(artifactStores[artifact]);
    }
  });
});

describe('rule 4: a 401 clears the session', () => {
  it.each([
    [401, 'clear-session'],
    [200, 'continue'],
    [403, 'continue'],
    [404, 'continue'],
    [409, 'continue'],
    [500, 'continue'],
  ] as const)('status %i: %s', (status, action) => {
    expect(answerAction(status)).toBe(action);
  });

  it('clears the token, cookies and URL cache', () => {
    expect([...unauthorizedArtifacts].sort()).toEqual(['cookies', 'token', 'url-cache']);
  });
});

describe('rule 5: sign-out clears everything of the session', () => {
  it('lists the token, cookies, URL cache, offline cache, queued actions and push registration', () => {
    expect([...signOutArtifacts].sort()).toEqual(
      ['cookies', 'offline-cache', 'push-subscription', 'queued-actions', 'token', 'url-cache'].sort(),
    );
  });
});

describe('rule 6: TLS 1.2 or newer', () => {
  it('names TLS 1.2 as the oldest (the hub refusing TLS 1.1 is tried in tls.test.ts)', () => {
    expect(minimumTlsVersion).toBe('TLSv1.2');
  });
});

describe('rule 7: the untrusted-TLS allowance is off by default and bound to one origin', () => {
  it.each([
    [null, 'https://hub.example.net', false],
    ['https://hub.example.net', 'https://hub.example.net', true],
    ['https://hub.example.net', 'https://hub.example.net:8443', false],
    ['https://hub.example.net', 'https://other.example.net', false],
    ['https://hub.example.net:8443', 'https://hub.example.net:8443', true],
    ['http://localhost:8080', 'http://localhost:8080', false],
  ])('allowance %s, hub %s: %s', (allowance, hub, allowed) => {
    expect(allowsUntrustedTls(allowance, hub)).toBe(allowed);
  });

  it.each([
    ['https://hub.example.net', 'https://hub.example.net', 'https://hub.example.net'],
    ['https://hub.example.net', 'https://other.example.net', null],
    ['https://hub.example.net', null, null],
    [null, 'https://hub.example.net', null],
  ])('allowance %s after choosing %s: %s', (allowance, next, kept) => {
    expect(allowanceAfterHubChange(allowance, next)).toBe(kept);
  });
});
