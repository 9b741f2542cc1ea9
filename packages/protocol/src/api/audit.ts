/** The audit trail, read with filters. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { Timestamp, literals, paged } from './shared.js';

export const actorTypes = ['api_key', 'session', 'system', 'agent'] as const;
export type ActorType = (typeof actorTypes)[number];
export const AuditEvent = Type.Object({
  id: Type.String(),
  ts: Timestamp,
  actor_type: literals(actorTypes),
  actor_id: Type.Union([Type.String(), Type.Null()]),
  action: Type.String(),
  target_type: Type.Union([Type.String(), Type.Null()]),
  target_id: Type.Union([Type.String(), Type.Null()]),
  asset_id: Type.Union([Type.String(), Type.Null()]),
  ip: Type.Union([Type.String(), Type.Null()]),
  request_id: Type.Union([Type.String(), Type.Null()]),
  detail: Type.Record(Type.String(), Type.Unknown()),
});
export type AuditEvent = Static<typeof AuditEvent>;

export const AuditQuery = Type.Object({
  action: Type.Optional(Type.String({ maxLength: 64 })),
  actor_id: Type.Optional(Type.String({ maxLength: 64 })),
  target_id: Type.Optional(Type.String({ maxLength: 64 })),
  asset_id: Type.Optional(Type.String({ maxLength: 64 })),
  since: Type.Optional(Timestamp),
  until: Type.Optional(Timestamp),
});
export type AuditQuery = Static<typeof AuditQuery>;

export const auditContracts = {
  'audit.list': defineRoute({
    name: 'audit.list',
    surface: 'v2',
    method: 'GET',
    path: '/audit/events',
    auth: 'scope',
    scope: 'audit:read',
    summary: 'Audit trail, newest first',
    query: paged(AuditQuery),
    response: AuditEvent,
    list: true,
  }),
} satisfies Record<string, RouteContract>;
