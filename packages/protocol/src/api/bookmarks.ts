/**
 * Terminal bookmarks (issue 34, decision 0091): an asset and a working directory, per user (or API key).
 * Opening one is a new terminal on that asset whose first input is `cd -- '<directory>'`: the agent's shell
 * starts where it always does, and every agent version can do this.
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { AssetId, IdParams, Maybe, Name, Timestamp } from './shared.js';

export const bookmarkLimits = {
  /** Characters of a directory (PATH_MAX is 4096 bytes; a bookmark is something people type). */
  directoryLength: 1024,
  /** Bookmarks one owner (a user, or an API key) may hold. */
  perOwner: 100,
} as const;

/** An absolute path, without control characters (it is typed into a shell, quoted). */
const Directory = Type.String({
  minLength: 1,
  maxLength: bookmarkLimits.directoryLength,
  pattern: '^/[^\\u0000-\\u001F\\u007F]*$',
});

export const Bookmark = Type.Object({
  id: Type.String(),
  name: Maybe(Type.String()),
  asset_id: Type.String(),
  directory: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Bookmark = Static<typeof Bookmark>;

export const BookmarkCreate = Type.Object(
  {
    asset_id: AssetId,
    directory: Directory,
    name: Type.Optional(Type.Union([Name, Type.Null()])),
  },
  { additionalProperties: false },
);
export type BookmarkCreate = Static<typeof BookmarkCreate>;

export const BookmarkUpdate = Type.Object(
  {
    directory: Type.Optional(Directory),
    name: Type.Optional(Type.Union([Name, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type BookmarkUpdate = Static<typeof BookmarkUpdate>;

export const bookmarksContracts = {
  'bookmarks.list': defineRoute({
    name: 'bookmarks.list',
    surface: 'v2',
    method: 'GET',
    path: '/terminal-bookmarks',
    auth: 'scope',
    scope: 'assets:exec',
    summary: "List the caller's terminal bookmarks (on assets it may see)",
    query: PaginationQuery,
    response: Bookmark,
    list: true,
  }),
  'bookmarks.create': defineRoute({
    name: 'bookmarks.create',
    surface: 'v2',
    method: 'POST',
    path: '/terminal-bookmarks',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Bookmark an asset and a working directory for terminals',
    body: BookmarkCreate,
    response: Bookmark,
    successStatus: 201,
  }),
  'bookmarks.update': defineRoute({
    name: 'bookmarks.update',
    surface: 'v2',
    method: 'PATCH',
    path: '/terminal-bookmarks/{id}',
    auth: 'scope',
    scope: 'assets:exec',
    summary: "Rename a terminal bookmark or change its directory (the caller's own)",
    params: IdParams,
    body: BookmarkUpdate,
    response: Bookmark,
  }),
  'bookmarks.delete': defineRoute({
    name: 'bookmarks.delete',
    surface: 'v2',
    method: 'DELETE',
    path: '/terminal-bookmarks/{id}',
    auth: 'scope',
    scope: 'assets:exec',
    summary: "Delete a terminal bookmark (the caller's own)",
    params: IdParams,
    response: Bookmark,
  }),
} satisfies Record<string, RouteContract>;
