/**
 * SVC_NATS_URL: `nats://` or `tls://`, one host and port, optional `user:password@`. Parsed in one place so the
 * config refuses what the bus could not use, and so every log line names the server without its password.
 */

export interface NatsTarget {
  /** `host:port` for the client. */
  server: string;
  tls: boolean;
  user: string | null;
  pass: string | null;
  /** The URL as logs may show it: the password replaced. */
  redacted: string;
}

export type NatsUrlResult = { ok: true; target: NatsTarget } | { ok: false; problem: string };

const defaultPort = 4222;

export function parseNatsUrl(text: string): NatsUrlResult {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: 'is not a URL' };
  }
  if (url.protocol !== 'nats:' && url.protocol !== 'tls:') {
    return { ok: false, problem: `must use nats:// or tls://, not ${url.protocol}//` };
  }
  if (url.hostname === '') return { ok: false, problem: 'names no host' };
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') {
    return { ok: false, problem: 'must be scheme://[user:password@]host[:port] with no path or query' };
  }
  const port = url.port === '' ? defaultPort : Number(url.port);
  const user = url.username === '' ? null : decodeURIComponent(url.username);
  const pass = url.password === '' ? null : decodeURIComponent(url.password);
  if (pass !== null && user === null) return { ok: false, problem: 'has a password without a user' };
  const host = url.hostname;
  const scheme = url.protocol.slice(0, -1);
  const credentials = user === null ? '' : `${encodeURIComponent(user)}${pass === null ? '' : ':***'}@`;
  return {
    ok: true,
    target: {
      server: `${host}:${port}`,
      tls: scheme === 'tls',
      user,
      pass,
      redacted: `${scheme}://${credentials}${host}:${port}`,
    },
  };
}
