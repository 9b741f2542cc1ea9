/**
 * The mobile app's transport policy (interface 5.6), pure so every rule is table-tested
 * (transport-policy.test.ts). The app's one fetch (mobile-client.ts) asks it before every request and after
 * every answer; sign-out and the hub change go through it too.
 *
 * 1. The hub URL is an origin only: `http[s]://host[:port]`, no credentials, path, query or fragment.
 * 2. HTTPS for every hub but a loopback one (`localhost`, `127.0.0.1`, `::1`).
 * 3. Tokens stay on the device: every artifact lives in a store of this browser profile, none synced.
 * 4. A 401 clears the session's artifacts and returns to sign-in.
 * 5. Sign-out clears the token, cookies, URL cache, offline cache, queued actions and push registration.
 * 6. TLS 1.2 or newer: the hub refuses older handshakes (tls-manager.ts; tls.test.ts tries TLS 1.1), and
 *    the browser offers nothing older either.
 * 7. The untrusted-TLS allowance is off by default and holds for the exact HTTPS origin it was given for;
 *    choosing or forgetting a hub clears it.
 */

export type HubOriginCheck = { ok: true; origin: string } | { ok: false; problem: string };

const loopbackHosts: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** `localhost`, `127.0.0.1` or `::1` (as URL.hostname writes it, `[::1]`). */
function isLoopbackHost(hostname: string): boolean {
  return loopbackHosts.includes(hostname.toLowerCase());
}

/** Rules 1 and 2: the hub address a user typed, as an origin, or why it is refused. */
export function checkHubOrigin(input: string): HubOriginCheck {
  const text = input.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: 'not an absolute URL (write it as https://host[:port])' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, problem: `the scheme ${url.protocol.replace(':', '')} is not http or https` };
  }
  if (url.username !== '' || url.password !== '' || /^[a-z]+:\/\/[^/]*@/i.test(text)) {
    return { ok: false, problem: 'the address may not hold a user name or password' };
  }
  // URL normalises an empty path to `/`: only a bare origin (with or without that one slash) passes.
  const afterAuthority = text.replace(/^[a-z]+:\/\/[^/?#]*/i, '');
  if (afterAuthority !== '' && afterAuthority !== '/') {
    if (url.hash !== '' || afterAuthority.includes('#')) {
      return { ok: false, problem: 'the address may not hold a fragment' };
    }
    if (url.search !== '' || afterAuthority.includes('?')) {
      return { ok: false, problem: 'the address may not hold a query' };
    }
    return { ok: false, problem: 'the address may not hold a path' };
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return { ok: false, problem: 'plain http is only for a hub on this device (localhost); use https' };
  }
  return { ok: true, origin: url.origin };
}

export type RequestCheck = { ok: true } | { ok: false; problem: string };

/** Before every request: it goes to the selected hub's origin, itself a valid hub origin. */
export function checkRequestUrl(url: string, hubOrigin: string): RequestCheck {
  const hub = checkHubOrigin(hubOrigin);
  if (!hub.ok) return { ok: false, problem: `the selected hub is refused: ${hub.problem}` };
  let target: URL;
  try {
    target = new URL(url, hub.origin);
  } catch {
    return { ok: false, problem: 'not a URL' };
  }
  if (target.origin !== hub.origin) {
    return {
      ok: false,
      problem: `requests go only to the selected hub (${hub.origin}), not ${target.origin}`,
    };
  }
  if (target.username !== '' || target.password !== '') {
    return { ok: false, problem: 'a request URL may not hold credentials' };
  }
  return { ok: true };
}

/** Rule 4: what the app does with an answer's status. */
export function answerAction(status: number): 'continue' | 'clear-session' {
  return status === 401 ? 'clear-session' : 'continue';
}

/** Rule 5: everything sign-out removes; `signOut` takes one cleaner per artifact, so none is forgotten. */
export const signOutArtifacts = [
  'token',
  'cookies',
  'url-cache',
  'offline-cache',
  'queued-actions',
  'push-subscription',
] as const;
export type SignOutArtifact = (typeof signOutArtifacts)[number];

/** What a 401 clears (rule 4): the session's artifacts; the device's settings and its queue's reasons stay. */
export const unauthorizedArtifacts: readonly SignOutArtifact[] = ['token', 'cookies', 'url-cache'];

/** Rule 3: where each artifact is kept. Every one is a store of this browser profile, none synced. */
export const artifactStores: Readonly<
  Record<SignOutArtifact, 'cookie' | 'local' | 'indexeddb' | 'cache' | 'push'>
> = {
  token: 'cookie',
  cookies: 'cookie',
  'url-cache': 'local',
  'offline-cache': 'cache',
  'queued-actions': 'indexeddb',
  'push-subscription': 'push',
};

/** Rule 7: whether an untrusted certificate is allowed for this request's hub. */
export function allowsUntrustedTls(allowance: string | null, hubOrigin: string): boolean {
  if (allowance === null) return false;
  const hub = checkHubOrigin(hubOrigin);
  return hub.ok && hub.origin.startsWith('https:') && hub.origin === allowance;
}

/** Rule 7: the allowance after the hub changed (or was forgotten, `next` null): kept only for the same origin. */
export function allowanceAfterHubChange(allowance: string | null, next: string | null): string | null {
  if (allowance === null || next === null) return null;
  return allowance === next ? allowance : null;
}

/** Rule 6: the oldest TLS version the hub answers (the hub's tls-manager sets the same). */
export const minimumTlsVersion = 'TLSv1.2';
