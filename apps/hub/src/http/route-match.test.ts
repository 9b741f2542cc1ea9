import { describe, expect, it } from 'vitest';
import { fullPath, routeList } from '@svc/protocol';
import { createRouteMatcher, decodeParams } from './route-match.js';

const matcher = createRouteMatcher(routeList);

describe('createRouteMatcher', () => {
  it('lands every contract path on its own contract, as the router does', () => {
    const misses = routeList.filter((contract) => {
      const sample = fullPath(contract).replace(/\{([a-zA-Z_]+)\}/g, (_whole, name: string) => {
        const pattern = contract.paramPatterns?.[name];
        return pattern === undefined ? 'zz_sample' : (pattern.split('|')[0] ?? '');
      });
      return matcher.find(contract.method, sample)?.contract.name !== contract.name;
    });

    expect(misses.map((c) => `${c.method} ${c.path}`)).toEqual([]);
  });

  it('prefers a literal segment over a parameter, and ignores a trailing slash', () => {
    const events = matcher.find('GET', '/api/v2/events/stream/');

    expect(events?.contract.path).toBe('/events/stream');
    expect(matcher.find('GET', '/api/v2/assets/ast_1')?.rawParams).toEqual({ id: 'ast_1' });
  });

  it('keeps a parameter within its pattern and within one segment', () => {
    expect(matcher.find('GET', '/api/v2/assets/a/b')).toBeNull();
    const settings = routeList.find((r) => r.path === '/settings/{domain}' && r.method === 'GET');
    const at = settings ? fullPath(settings).replace('{domain}', 'not-a-domain') : '';
    expect(matcher.find('GET', at)?.contract.path).not.toBe('/settings/{domain}');
  });

  it('lists the methods at a path, for 405', () => {
    expect(matcher.methodsAt('/api/v2/assets/ast_1').sort()).toEqual(
      expect.arrayContaining(['DELETE', 'GET']) as unknown,
    );
    expect(matcher.methodsAt('/api/v2/nothing/here')).toEqual([]);
  });
});

describe('decodeParams', () => {
  it('decodes, and answers null for text that is not percent-encoding instead of throwing', () => {
    expect(decodeParams({ id: 'a%20b' })).toEqual({ id: 'a b' });
    for (const bad of ['%', '%E0%A4%A', '%zz', '%C0']) {
      expect(decodeParams({ id: bad }), bad).toBeNull();
    }
  });
});
