/** Webhooks: event deliveries to a URL, signed with a write-only secret (ARCHITECTURE §3 "Webhooks"). */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { eventTypes } from '../events.js';
import { IdParams, Maybe, Name, NullableTimestamp, Timestamp } from './shared.js';

export const webhookLimits = {
  urlLength: 2048,
  secretMinLength: 16,
  secretMaxLength: 256,
  /** The JSON of a delivery's `data`: an event above it is dropped and counted, never cut. */
  dataBytes: 256 * 1024,
} as const;

/** The type a "send test event" delivery carries: outside the catalog, never published on the bus. */
export const webhookTestEventType = 'webhook.test';

const WebhookUrl = Type.String({ minLength: 1, maxLength: webhookLimits.urlLength });
const WebhookSecret = Type.String({
  minLength: webhookLimits.secretMinLength,
  maxLength: webhookLimits.secretMaxLength,
});
const WebhookEvents = Type.Array(Type.Enum<[...typeof eventTypes]>(eventTypes), {
  maxItems: eventTypes.length,
  uniqueItems: true,
});

export const WebhookDeliveryStats = Type.Object({
  /** Deliveries the receiver answered with 2xx. */
  delivered: Type.Integer(),
  /** Attempts that failed (each retry counts). */
  failed_attempts: Type.Integer(),
  /** Deliveries given up: retries exhausted, queue full, data too large, or refused by the egress guard. */
  dropped: Type.Integer(),
  /** Waiting in the queue or between retries now. */
  pending: Type.Integer(),
  last_delivered_at: NullableTimestamp,
  last_error: Maybe(Type.String()),
  last_error_at: NullableTimestamp,
});
export type WebhookDeliveryStats = Static<typeof WebhookDeliveryStats>;

/** A webhook as every read shows it: never its secret. */
export const Webhook = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  /** Event types delivered; empty means all. */
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  deliveries: WebhookDeliveryStats,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Webhook = Static<typeof Webhook>;

/** The answer to a create: the webhook and its secret, shown this once. */
export const WebhookCreated = Type.Object({
  ...Webhook.properties,
  secret: Type.String(),
});
export type WebhookCreated = Static<typeof WebhookCreated>;

export const WebhookCreate = Type.Object(
  {
    name: Name,
    url: WebhookUrl,
    /** Generated (and shown once) when absent. */
    secret: Type.Optional(WebhookSecret),
    events: Type.Optional(WebhookEvents),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type WebhookCreate = Static<typeof WebhookCreate>;

/** PUT: every field but the secret (absent keeps the current one). */
export const WebhookReplace = Type.Object(
  {
    name: Name,
    url: WebhookUrl,
    secret: Type.Optional(WebhookSecret),
    events: WebhookEvents,
    enabled: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type WebhookReplace = Static<typeof WebhookReplace>;

export const WebhookUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    url: Type.Optional(WebhookUrl),
    secret: Type.Optional(WebhookSecret),
    events: Type.Optional(WebhookEvents),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type WebhookUpdate = Static<typeof WebhookUpdate>;

export const webhookTestOutcomes = ['delivered', 'failed', 'refused'] as const;

/** What one test delivery did: sent once, no retries, counted like any delivery. */
export const WebhookTestResult = Type.Object({
  delivery_id: Type.String(),
  outcome: Type.Enum<[...typeof webhookTestOutcomes]>(webhookTestOutcomes),
  http_status: Maybe(Type.Integer()),
  error: Maybe(Type.String()),
  duration_ms: Type.Number(),
});
export type WebhookTestResult = Static<typeof WebhookTestResult>;

const unrestrictedOnly = true;

export const webhooksContracts = {
  'webhooks.create': defineRoute({
    name: 'webhooks.create',
    surface: 'v2',
    method: 'POST',
    path: '/webhooks',
    auth: 'scope',
    scope: 'webhooks:write',
    summary: 'Register a webhook',
    description:
      'The URL passes the egress guard now and again at every delivery and redirect. The secret (generated ' +
      'when absent) is in this answer only; reads never show it.',
    unrestrictedOnly,
    body: WebhookCreate,
    response: WebhookCreated,
    successStatus: 201,
  }),
  'webhooks.list': defineRoute({
    name: 'webhooks.list',
    surface: 'v2',
    method: 'GET',
    path: '/webhooks',
    auth: 'scope',
    scope: 'webhooks:read',
    summary: 'List webhooks',
    unrestrictedOnly,
    query: PaginationQuery,
    response: Webhook,
    list: true,
  }),
  'webhooks.get': defineRoute({
    name: 'webhooks.get',
    surface: 'v2',
    method: 'GET',
    path: '/webhooks/{id}',
    auth: 'scope',
    scope: 'webhooks:read',
    summary: 'Get a webhook with its delivery counters',
    unrestrictedOnly,
    params: IdParams,
    response: Webhook,
  }),
  'webhooks.replace': defineRoute({
    name: 'webhooks.replace',
    surface: 'v2',
    method: 'PUT',
    path: '/webhooks/{id}',
    auth: 'scope',
    scope: 'webhooks:write',
    summary: 'Update a webhook (every field; an absent secret is kept)',
    unrestrictedOnly,
    params: IdParams,
    body: WebhookReplace,
    response: Webhook,
  }),
  'webhooks.update': defineRoute({
    name: 'webhooks.update',
    surface: 'v2',
    method: 'PATCH',
    path: '/webhooks/{id}',
    auth: 'scope',
    scope: 'webhooks:write',
    summary: 'Update some fields of a webhook',
    unrestrictedOnly,
    params: IdParams,
    body: WebhookUpdate,
    response: Webhook,
  }),
  'webhooks.delete': defineRoute({
    name: 'webhooks.delete',
    surface: 'v2',
    method: 'DELETE',
    path: '/webhooks/{id}',
    auth: 'scope',
    scope: 'webhooks:write',
    summary: 'Remove a webhook (queued deliveries to it are dropped)',
    unrestrictedOnly,
    params: IdParams,
    response: Webhook,
  }),
  'webhooks.test': defineRoute({
    name: 'webhooks.test',
    surface: 'v2',
    method: 'POST',
    path: '/webhooks/{id}/test',
    auth: 'scope',
    scope: 'webhooks:write',
    summary: 'Send a test event (`webhook.test`) once, and answer what the receiver did',
    unrestrictedOnly,
    params: IdParams,
    response: WebhookTestResult,
  }),
} satisfies Record<string, RouteContract>;
