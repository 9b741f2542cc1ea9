/** Agents: the ones connected now, their credentials, and the channel they hold to the hub. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { IdParams, Maybe, Timestamp, assetParam } from './shared.js';

export const ConnectedAgent = Type.Object({
  asset_id: Type.String(),
  name: Type.String(),
  hostname: Maybe(Type.String()),
  platform: Type.String(),
  agent_version: Maybe(Type.String()),
  connected_at: Timestamp,
  last_seen_at: Timestamp,
  remote_address: Maybe(Type.String()),
  low_power: Type.Boolean(),
  /**
   * The agent's metric samples since the hub started: taken, and dropped by its budget (over the samples per
   * collect interval, not newer than its newest sample, or stamped outside the retention / too far ahead).
   */
  metrics: Type.Object({
    accepted: Type.Integer({ minimum: 0 }),
    over_budget: Type.Integer({ minimum: 0 }),
    duplicate: Type.Integer({ minimum: 0 }),
    out_of_window: Type.Integer({ minimum: 0 }),
  }),
});
export type ConnectedAgent = Static<typeof ConnectedAgent>;

export const CredentialRotated = Type.Object({ asset_id: Type.String(), delivered: Type.Boolean() });
export const CredentialRevoked = Type.Object({ asset_id: Type.String(), revoked: Type.Boolean() });

export const agentsContracts = {
  'agents.list': defineRoute({
    name: 'agents.list',
    operationId: 'hub.agents',
    surface: 'v2',
    method: 'GET',
    path: '/hub/agents',
    auth: 'scope',
    scope: 'hub:read',
    summary: 'Connected agents',
    query: PaginationQuery,
    response: ConnectedAgent,
    list: true,
  }),
  'agents.rotateCredential': defineRoute({
    name: 'agents.rotateCredential',
    surface: 'v2',
    method: 'POST',
    path: '/agents/{id}/credential/rotate',
    auth: 'admin',
    summary: 'Give the connected agent of an asset a new credential; the old one stops working',
    asset: assetParam,
    params: IdParams,
    response: CredentialRotated,
  }),
  'agents.revokeCredential': defineRoute({
    name: 'agents.revokeCredential',
    surface: 'v2',
    method: 'DELETE',
    path: '/agents/{id}/credential',
    auth: 'admin',
    summary: 'Revoke the agent credential of an asset and disconnect it',
    asset: assetParam,
    params: IdParams,
    response: CredentialRevoked,
  }),
  'agents.channel': defineRoute({
    name: 'agents.channel',
    operationId: 'agent.channel',
    surface: 'transport',
    method: 'GET',
    path: '/agent/channel',
    auth: 'public',
    summary: 'The agent WebSocket (authenticated by the agent credential, not an API key)',
    raw: true,
    upgrade: true,
  }),
} satisfies Record<string, RouteContract>;
