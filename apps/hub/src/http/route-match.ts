/**
 * The route contract a path lands on, outside Fastify's router: the WebSocket upgrades (Node hands them to the
 * server's 'upgrade' event, not to the routes), the 405-or-404 answer of an unknown path, and the e2e tests'
 * route inventory. Picked as the router picks: a parameter takes one path segment, or one of its pattern's
 * alternatives; a literal segment wins over a parameter; a trailing slash is ignored.
 */
import { routerPath, type RouteContract } from '@svc/protocol';

interface RouteMatch {
  contract: RouteContract;
  /** The path parameters as sent (percent-encoded): decodeParams reads them. */
  rawParams: Record<string, string>;
}

export interface RouteMatcher {
  /** The route `method` (or any method, when null) lands on at `path` (no query), or null. */
  find(method: string | null, path: string): RouteMatch | null;
  /** The methods of every route at `path`, for a 405's `Allow`. */
  methodsAt(path: string): string[];
}

interface Compiled {
  contract: RouteContract;
  pattern: RegExp;
  names: string[];
  /** Per segment: 0 literal, 1 parameter with alternatives, 2 any parameter; lower wins, segment by segment. */
  rank: number[];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(contract: RouteContract): Compiled {
  const names: string[] = [];
  const rank: number[] = [];
  const source = routerPath(contract)
    .split('/')
    .map((segment) => {
      const param = /^:([a-zA-Z_]+)(?:\(([^()]*)\))?$/.exec(segment);
      if (!param) {
        rank.push(0);
        return escapeRegExp(segment);
      }
      names.push(param[1] ?? '');
      const alternatives = param[2];
      rank.push(alternatives === undefined ? 2 : 1);
      return alternatives === undefined ? '([^/]+)' : `(${alternatives})`;
    })
    .join('/');
  return { contract, pattern: new RegExp(`^${source}/?$`), names, rank };
}

function compareRank(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return a.length - b.length;
}

export function createRouteMatcher(routes: readonly RouteContract[]): RouteMatcher {
  const compiled = routes.map(compile);
  return {
    find(method, path) {
      let best: { route: Compiled; found: RegExpExecArray } | null = null;
      for (const route of compiled) {
        if (method !== null && route.contract.method !== method) continue;
        const found = route.pattern.exec(path);
        if (found && (!best || compareRank(route.rank, best.route.rank) < 0)) best = { route, found };
      }
      if (!best) return null;
      const { route, found } = best;
      const rawParams: Record<string, string> = {};
      route.names.forEach((name, i) => {
        rawParams[name] = found[i + 1] ?? '';
      });
      return { contract: route.contract, rawParams };
    },
    methodsAt(path) {
      return [...new Set(compiled.filter((r) => r.pattern.test(path)).map((r) => r.contract.method))];
    },
  };
}

/** The parameters percent-decoded, or null when one is not valid percent-encoding (never throws). */
export function decodeParams(raw: Record<string, string>): Record<string, string> | null {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    try {
      decoded[name] = decodeURIComponent(value);
    } catch {
      return null;
    }
  }
  return decoded;
}
