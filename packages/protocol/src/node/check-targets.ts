/**
 * What a check's `target` says, by kind: an http(s) URL, `host:port`, or a host. Parsed when the check is saved
 * (a 400 naming `target`), again before each run, and by an agent before it runs one (decision 0084), so a
 * probe only ever sees a parsed target: never a scheme other than http(s), credentials, or a leading `-`.
 */
import type { CheckKind } from '../check-limits.js';

export type CheckTarget =
  | { kind: 'http'; host: string; url: URL }
  | { kind: 'tcp'; host: string; port: number }
  | { kind: 'ping'; host: string };

export type ParsedTarget = { ok: true; target: CheckTarget } | { ok: false; problem: string };

// A DNS name or an IPv4 address: letters, digits, hyphens and dots, no empty label.
const hostName =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;
const bracketed = /^\[([0-9a-f:.]+)\]$/i;

/** A host as a check names it: a DNS name, an IPv4 address, or an IPv6 address (bare or in brackets). */
function parseHost(text: string): string | null {
  const inBrackets = bracketed.exec(text);
  if (inBrackets?.[1] !== undefined) return inBrackets[1].toLowerCase();
  if (text.includes(':')) return /^[0-9a-f:.]+$/i.test(text) ? text.toLowerCase() : null;
  return hostName.test(text) ? text.toLowerCase().replace(/\.$/, '') : null;
}

function parsePort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65_535 ? port : null;
}

export function parseCheckTarget(kind: CheckKind, text: string): ParsedTarget {
  const trimmed = text.trim();
  switch (kind) {
    case 'http': {
      let url: URL;
      try {
        url = new URL(trimmed);
      } catch {
        return { ok: false, problem: 'not an absolute http or https URL' };
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        return { ok: false, problem: 'the scheme must be http or https' };
      if (url.username !== '' || url.password !== '')
        return { ok: false, problem: 'credentials in the URL are not accepted' };
      const host = parseHost(url.hostname);
      if (host === null) return { ok: false, problem: 'the URL has no usable host' };
      url.hash = '';
      return { ok: true, target: { kind, host, url } };
    }
    case 'tcp': {
      const colon = trimmed.lastIndexOf(':');
      if (colon <= 0) return { ok: false, problem: 'give host:port' };
      const host = parseHost(trimmed.slice(0, colon));
      const port = parsePort(trimmed.slice(colon + 1));
      if (host === null) return { ok: false, problem: 'the host is not a name or an address' };
      if (port === null) return { ok: false, problem: 'the port must be 1 to 65535' };
      return { ok: true, target: { kind, host, port } };
    }
    case 'ping': {
      const host = parseHost(trimmed);
      if (host === null) return { ok: false, problem: 'the host is not a name or an address' };
      return { ok: true, target: { kind, host } };
    }
  }
}

/** The target as stored: the URL normalized, `host:port` with IPv6 in brackets, the host alone. */
export function formatCheckTarget(target: CheckTarget): string {
  switch (target.kind) {
    case 'http':
      return target.url.href;
    case 'tcp':
      return `${target.host.includes(':') ? `[${target.host}]` : target.host}:${String(target.port)}`;
    case 'ping':
      return target.host;
  }
}
