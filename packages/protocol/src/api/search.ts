/** Search over the assets and groups the caller may see. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { limits, literals, paged } from './shared.js';

export const SearchQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: limits.searchQueryLength }),
  type: Type.Optional(literals(['asset', 'group'] as const)),
});
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchHit = Type.Object({
  type: literals(['asset', 'group'] as const),
  id: Type.String(),
  name: Type.String(),
  matched: Type.String(),
});
export type SearchHit = Static<typeof SearchHit>;

export const searchContracts = {
  search: defineRoute({
    name: 'search',
    surface: 'v2',
    method: 'GET',
    path: '/search',
    auth: 'scope',
    scope: 'search:read',
    summary: 'Search assets and groups the caller may see',
    query: paged(SearchQuery),
    response: SearchHit,
    list: true,
  }),
} satisfies Record<string, RouteContract>;
