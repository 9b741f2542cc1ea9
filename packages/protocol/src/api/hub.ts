/** The hub itself: health, its TLS certificate, and this API's OpenAPI document. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { Timestamp, literals } from './shared.js';
import { TlsStatus } from './tls.js';

export const HubStatus = Type.Object({
  status: literals(['ok', 'degraded'] as const),
  version: Type.String(),
  started_at: Timestamp,
  uptime_seconds: Type.Integer({ minimum: 0 }),
  database: literals(['sqlite', 'postgres'] as const),
  assets: Type.Object({
    total: Type.Integer({ minimum: 0 }),
    online: Type.Integer({ minimum: 0 }),
    offline: Type.Integer({ minimum: 0 }),
    unknown: Type.Integer({ minimum: 0 }),
  }),
  agents_connected: Type.Integer({ minimum: 0 }),
  /** Metric samples since the hub started, and histories of deleted assets still being deleted. */
  metrics: Type.Object({
    /** Dropped by agents' budgets (over budget, duplicate timestamp, outside the window). */
    samples_dropped: Type.Integer({ minimum: 0 }),
    /** Taken but lost by the store: its buffer was full, or a write failed. */
    samples_lost: Type.Integer({ minimum: 0 }),
    purges_pending: Type.Integer({ minimum: 0 }),
  }),
  time: Timestamp,
});
export type HubStatus = Static<typeof HubStatus>;

export const hubContracts = {
  'hub.status': defineRoute({
    name: 'hub.status',
    surface: 'v2',
    method: 'GET',
    path: '/hub/status',
    auth: 'scope',
    scope: 'hub:read',
    summary: 'Hub health',
    response: HubStatus,
  }),
  'hub.openapi': defineRoute({
    name: 'hub.openapi',
    operationId: 'openapi',
    surface: 'v2',
    method: 'GET',
    path: '/openapi.json',
    auth: 'public',
    summary: 'This OpenAPI 3.1 document',
    raw: true,
  }),
  'hub.tls': defineRoute({
    name: 'hub.tls',
    surface: 'v2',
    method: 'GET',
    path: '/hub/tls',
    auth: 'scope',
    scope: 'hub:read',
    summary: 'TLS certificate status',
    response: TlsStatus,
  }),
} satisfies Record<string, RouteContract>;
