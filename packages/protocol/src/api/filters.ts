/**
 * Saved filters of the assets list (issue 34 point 3, decision 0096): the list's filter set (search text,
 * status, platform, group, order) kept under a name, per user (or API key), in the hub so that it follows
 * its owner to another browser. Only its owner sees, renames or deletes one.
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { assetSorts, assetStatuses, platforms } from './assets.js';
import { DisplayName } from '../display-text.js';
import { IdParams, Timestamp, limits, literals } from './shared.js';

export const savedFilterLimits = {
  /** Characters of a saved filter's name: it is a button's label. */
  nameLength: 80,
  /** Saved filters one owner (a user, or an API key) may hold. */
  perOwner: 50,
} as const;

const SavedFilterName = DisplayName(savedFilterLimits.nameLength);

/** What the assets list filters by, each as the list's own query parameter takes it; none of them: everything. */
export const SavedFilterCriteria = Type.Object(
  {
    q: Type.Optional(Type.String({ minLength: 1, maxLength: limits.searchQueryLength })),
    status: Type.Optional(literals(assetStatuses)),
    platform: Type.Optional(literals(platforms)),
    group: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    sort: Type.Optional(literals(assetSorts)),
  },
  { additionalProperties: false },
);
export type SavedFilterCriteria = Static<typeof SavedFilterCriteria>;

export const SavedFilter = Type.Object({
  id: Type.String(),
  name: Type.String(),
  criteria: SavedFilterCriteria,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type SavedFilter = Static<typeof SavedFilter>;

export const SavedFilterCreate = Type.Object(
  { name: SavedFilterName, criteria: SavedFilterCriteria },
  { additionalProperties: false },
);
export type SavedFilterCreate = Static<typeof SavedFilterCreate>;

export const SavedFilterUpdate = Type.Object(
  { name: Type.Optional(SavedFilterName), criteria: Type.Optional(SavedFilterCriteria) },
  { additionalProperties: false, minProperties: 1 },
);
export type SavedFilterUpdate = Static<typeof SavedFilterUpdate>;

/** The caller's own (selfService: a viewer keeps filters too, as it keeps its own password). */
export const filtersContracts = {
  'filters.list': defineRoute({
    name: 'filters.list',
    surface: 'v2',
    method: 'GET',
    path: '/asset-filters',
    auth: 'scope',
    scope: 'assets:read',
    summary: "List the caller's saved filters of the assets list, by name",
    query: PaginationQuery,
    response: SavedFilter,
    list: true,
  }),
  'filters.create': defineRoute({
    name: 'filters.create',
    surface: 'v2',
    method: 'POST',
    path: '/asset-filters',
    auth: 'scope',
    scope: 'assets:read',
    selfService: true,
    summary: 'Save a filter of the assets list under a name',
    body: SavedFilterCreate,
    response: SavedFilter,
    successStatus: 201,
  }),
  'filters.update': defineRoute({
    name: 'filters.update',
    surface: 'v2',
    method: 'PATCH',
    path: '/asset-filters/{id}',
    auth: 'scope',
    scope: 'assets:read',
    selfService: true,
    summary: "Rename a saved filter or change what it filters by (the caller's own)",
    params: IdParams,
    body: SavedFilterUpdate,
    response: SavedFilter,
  }),
  'filters.delete': defineRoute({
    name: 'filters.delete',
    surface: 'v2',
    method: 'DELETE',
    path: '/asset-filters/{id}',
    auth: 'scope',
    scope: 'assets:read',
    selfService: true,
    summary: "Delete a saved filter (the caller's own)",
    params: IdParams,
    response: SavedFilter,
  }),
} satisfies Record<string, RouteContract>;
