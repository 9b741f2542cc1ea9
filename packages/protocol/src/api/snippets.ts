/**
 * Saved terminal snippets (issue 34, decision 0091): text a user types into a terminal often, kept by name.
 * A snippet is `personal` (only its owner sees it) or `shared` (every caller with terminal rights sees it;
 * only its author or an admin changes or deletes it). Inserting one types it into a session as input: the
 * console sends it, the hub never runs it.
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { Description, IdParams, Maybe, Name, Timestamp, literals } from './shared.js';

export const snippetScopes = ['personal', 'shared'] as const;
export type SnippetScope = (typeof snippetScopes)[number];

export const snippetLimits = {
  /** Characters of a snippet's text (one terminal input frame is 16 KiB; the console splits larger input). */
  textLength: 16 * 1024,
  /** Snippets one owner (a user, or an API key) may hold, personal and shared together. */
  perOwner: 200,
} as const;

/**
 * What a terminal may be sent: any text but the control characters that are not line layout (tab, line
 * feed, carriage return stay), so a shared snippet cannot carry escape sequences into someone's terminal.
 */
const SnippetText = Type.String({
  minLength: 1,
  maxLength: snippetLimits.textLength,
  pattern: '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F]*$',
});

export const Snippet = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Maybe(Type.String()),
  text: Type.String(),
  scope: literals(snippetScopes),
  /** Who wrote it: `session` (a user id) or `api_key` (a key id), as sessions name their owner. */
  owner_type: literals(['session', 'api_key'] as const),
  owner_id: Type.String(),
  /** Whether the caller may change or delete it: its author, or an admin for a shared one. */
  can_edit: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Snippet = Static<typeof Snippet>;

export const SnippetCreate = Type.Object(
  {
    name: Name,
    text: SnippetText,
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    scope: Type.Optional(literals(snippetScopes)),
  },
  { additionalProperties: false },
);
export type SnippetCreate = Static<typeof SnippetCreate>;

export const SnippetUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    text: Type.Optional(SnippetText),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    scope: Type.Optional(literals(snippetScopes)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type SnippetUpdate = Static<typeof SnippetUpdate>;

const SnippetListQuery = Type.Object(
  { ...PaginationQuery.properties, scope: Type.Optional(literals(snippetScopes)) },
  { additionalProperties: false },
);

export const snippetsContracts = {
  'snippets.list': defineRoute({
    name: 'snippets.list',
    surface: 'v2',
    method: 'GET',
    path: '/terminal-snippets',
    auth: 'scope',
    scope: 'assets:exec',
    summary: "List terminal snippets: the caller's personal ones and every shared one",
    query: SnippetListQuery,
    response: Snippet,
    list: true,
    // Command lines, as cron's and processes' are: not for the viewer role (decision 0005).
    readsSecrets: true,
  }),
  'snippets.create': defineRoute({
    name: 'snippets.create',
    surface: 'v2',
    method: 'POST',
    path: '/terminal-snippets',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Save a terminal snippet (personal by default)',
    body: SnippetCreate,
    response: Snippet,
    successStatus: 201,
  }),
  'snippets.update': defineRoute({
    name: 'snippets.update',
    surface: 'v2',
    method: 'PATCH',
    path: '/terminal-snippets/{id}',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Change a terminal snippet (its author, or an admin for a shared one)',
    params: IdParams,
    body: SnippetUpdate,
    response: Snippet,
  }),
  'snippets.delete': defineRoute({
    name: 'snippets.delete',
    surface: 'v2',
    method: 'DELETE',
    path: '/terminal-snippets/{id}',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Delete a terminal snippet (its author, or an admin for a shared one)',
    params: IdParams,
    response: Snippet,
  }),
} satisfies Record<string, RouteContract>;
