/** Files of an asset, through its agent: list, read, write, mkdir, rename, copy, delete. */
import { Type, type Static } from 'typebox';
import { agentLimits } from '../agent-messages.js';
import { defineRoute, type RouteContract } from '../contract.js';
import { IdParams, agentResult, assetParam } from './shared.js';

const Path = Type.String({ minLength: 1, maxLength: agentLimits.pathLength });

export const PathQuery = Type.Object({ path: Path });
export const DeleteQuery = Type.Object({
  path: Path,
  recursive: Type.Optional(Type.Boolean({ default: false })),
});

/** Uploads travel as base64 in JSON; the route's body limit allows the largest file plus encoding. */
export const fileUploadBodyBytes = Math.ceil((agentLimits.fileBytes * 4) / 3) + 64 * 1024;
export const FileWrite = Type.Object(
  {
    path: Path,
    // No maxLength: the route's body limit bounds it, and the service answers 413 for a file over the limit.
    content_base64: Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$' }),
    overwrite: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type FileWrite = Static<typeof FileWrite>;
export const FileMkdir = Type.Object(
  { path: Path, recursive: Type.Optional(Type.Boolean({ default: false })) },
  { additionalProperties: false },
);
export const FileMove = Type.Object(
  { from: Path, to: Path, overwrite: Type.Optional(Type.Boolean({ default: false })) },
  { additionalProperties: false },
);
export type FileMove = Static<typeof FileMove>;

export const filesContracts = {
  'files.list': defineRoute({
    name: 'files.list',
    surface: 'v2',
    method: 'GET',
    path: '/assets/{id}/files',
    auth: 'scope',
    scope: 'files:read',
    summary: 'List a directory',
    asset: assetParam,
    params: IdParams,
    query: PathQuery,
    response: agentResult('files.list'),
  }),
  'files.read': defineRoute({
    name: 'files.read',
    surface: 'v2',
    method: 'GET',
    path: '/assets/{id}/files/read',
    auth: 'scope',
    scope: 'files:read',
    readsSecrets: true,
    summary: 'Download a file (raw bytes)',
    asset: assetParam,
    params: IdParams,
    query: PathQuery,
    raw: true,
  }),
  'files.write': defineRoute({
    name: 'files.write',
    surface: 'v2',
    method: 'POST',
    path: '/assets/{id}/files/write',
    auth: 'scope',
    scope: 'files:write',
    summary: 'Upload a file (base64 in JSON)',
    asset: assetParam,
    params: IdParams,
    body: FileWrite,
    bodyLimit: fileUploadBodyBytes,
    response: agentResult('files.write'),
  }),
  'files.mkdir': defineRoute({
    name: 'files.mkdir',
    surface: 'v2',
    method: 'POST',
    path: '/assets/{id}/files/mkdir',
    auth: 'scope',
    scope: 'files:write',
    summary: 'Create a directory',
    asset: assetParam,
    params: IdParams,
    body: FileMkdir,
    response: agentResult('files.mkdir'),
  }),
  'files.rename': defineRoute({
    name: 'files.rename',
    surface: 'v2',
    method: 'POST',
    path: '/assets/{id}/files/rename',
    auth: 'scope',
    scope: 'files:write',
    summary: 'Rename or move',
    asset: assetParam,
    params: IdParams,
    body: FileMove,
    response: agentResult('files.rename'),
  }),
  'files.copy': defineRoute({
    name: 'files.copy',
    surface: 'v2',
    method: 'POST',
    path: '/assets/{id}/files/copy',
    auth: 'scope',
    scope: 'files:write',
    summary: 'Copy',
    asset: assetParam,
    params: IdParams,
    body: FileMove,
    response: agentResult('files.copy'),
  }),
  'files.delete': defineRoute({
    name: 'files.delete',
    surface: 'v2',
    method: 'DELETE',
    path: '/assets/{id}/files',
    auth: 'scope',
    scope: 'files:write',
    summary: 'Delete a file or directory',
    asset: assetParam,
    params: IdParams,
    query: DeleteQuery,
    response: agentResult('files.delete'),
  }),
} satisfies Record<string, RouteContract>;
