/** Incidents: the alerts of one asset grouped while the incident is open, resolved by people (decision 0017). */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { AlertSeverity } from './alerts.js';
import { DisplayName, DisplayText } from '../display-text.js';
import { AssetId, IdParams, Maybe, NullableTimestamp, Timestamp, literals, paged } from './shared.js';

export const incidentStatuses = ['open', 'resolved'] as const;
export type IncidentStatus = (typeof incidentStatuses)[number];

export const Incident = Type.Object({
  id: Type.String(),
  asset_id: Type.String(),
  title: Type.String(),
  /** The highest severity among its alerts. */
  severity: AlertSeverity,
  status: literals(incidentStatuses),
  alert_count: Type.Integer(),
  /** Of its alerts, how many are not resolved yet. */
  active_alerts: Type.Integer(),
  opened_at: Timestamp,
  updated_at: Timestamp,
  resolved_at: NullableTimestamp,
  resolved_by: Maybe(Type.String()),
});
export type Incident = Static<typeof Incident>;

export const IncidentListQuery = Type.Object({
  status: Type.Optional(literals(incidentStatuses)),
  severity: Type.Optional(AlertSeverity),
  asset: Type.Optional(AssetId),
});
export type IncidentListQuery = Static<typeof IncidentListQuery>;

/**
 * An incident's review (decision 0080): a timeline assembled from what the hub stored about it, and the
 * summary, cause and follow-ups people write. Bounds on what is written and on the timeline's length.
 */
export const reviewLimits = {
  summaryLength: 10_000,
  causeLength: 10_000,
  followUps: 50,
  followUpLength: 500,
  /** Entries of the timeline at most; beyond, it is cut and says so. */
  timelineEntries: 500,
  /** Audit entries of the asset from this long before the incident opened to this long after it ended. */
  marginMinutes: 15,
} as const;

export const FollowUp = Type.Object(
  { text: DisplayName(reviewLimits.followUpLength), done: Type.Boolean() },
  { additionalProperties: false },
);
export type FollowUp = Static<typeof FollowUp>;

export const timelineSources = ['incident', 'alert', 'audit'] as const;
export type TimelineSource = (typeof timelineSources)[number];

export const TimelineEntry = Type.Object({
  ts: Timestamp,
  source: literals(timelineSources),
  /** What happened: `incident.opened`, `alert.fired`, `alert.acknowledged`, … or the audit action. */
  type: Type.String(),
  text: Type.String(),
  /** Who acted (a user or key id), null for the hub itself. */
  actor: Maybe(Type.String()),
  /** The alert or audit entry this comes from. */
  ref_id: Maybe(Type.String()),
});
export type TimelineEntry = Static<typeof TimelineEntry>;

export const IncidentReview = Type.Object({
  incident: Incident,
  summary: Type.String(),
  cause: Type.String(),
  follow_ups: Type.Array(FollowUp),
  /** Null until someone wrote the review. */
  updated_at: NullableTimestamp,
  updated_by: Maybe(Type.String()),
  /** The time span the audit entries come from: opened − margin to (resolved or now) + margin. */
  window: Type.Object({ from: Timestamp, to: Timestamp }),
  timeline: Type.Array(TimelineEntry),
  /** Entries found; more than `timeline` holds when it was cut. */
  timeline_total: Type.Integer(),
  /** Whether the asset's audit entries are in it (the caller may read the audit trail). */
  audit_included: Type.Boolean(),
  /** Why the timeline is not everything, when it is not; else null. */
  note: Maybe(Type.String()),
});
export type IncidentReview = Static<typeof IncidentReview>;

const reviewFields = {
  summary: DisplayText(reviewLimits.summaryLength),
  cause: DisplayText(reviewLimits.causeLength),
  follow_ups: Type.Array(FollowUp, { maxItems: reviewLimits.followUps }),
};

/** PUT: the whole written part. */
export const IncidentReviewReplace = Type.Object(reviewFields, { additionalProperties: false });
export type IncidentReviewReplace = Static<typeof IncidentReviewReplace>;

/** PATCH: the fields given, at least one. */
export const IncidentReviewUpdate = Type.Object(
  {
    summary: Type.Optional(reviewFields.summary),
    cause: Type.Optional(reviewFields.cause),
    follow_ups: Type.Optional(reviewFields.follow_ups),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type IncidentReviewUpdate = Static<typeof IncidentReviewUpdate>;

export const incidentsContracts = {
  'incidents.list': defineRoute({
    name: 'incidents.list',
    surface: 'v2',
    method: 'GET',
    path: '/incidents',
    auth: 'scope',
    scope: 'alerts:read',
    summary: 'Incidents, newest first, filtered by status, severity and asset',
    query: paged(IncidentListQuery),
    response: Incident,
    list: true,
  }),
  'incidents.resolve': defineRoute({
    name: 'incidents.resolve',
    surface: 'v2',
    method: 'POST',
    path: '/incidents/{id}/resolve',
    auth: 'scope',
    scope: 'alerts:write',
    summary: 'Resolve an incident (its alerts stay as they are)',
    params: IdParams,
    response: Incident,
  }),
  'incidents.review': defineRoute({
    name: 'incidents.review',
    surface: 'v2',
    method: 'GET',
    path: '/incidents/{id}/review',
    auth: 'scope',
    scope: 'alerts:read',
    summary: "An incident's review: its timeline (alerts, the asset's audit entries) and what people wrote",
    params: IdParams,
    response: IncidentReview,
  }),
  'incidents.replaceReview': defineRoute({
    name: 'incidents.replaceReview',
    surface: 'v2',
    method: 'PUT',
    path: '/incidents/{id}/review',
    auth: 'scope',
    scope: 'alerts:write',
    summary: "Write an incident's review: summary, cause and follow-ups, all three",
    params: IdParams,
    body: IncidentReviewReplace,
    response: IncidentReview,
  }),
  'incidents.updateReview': defineRoute({
    name: 'incidents.updateReview',
    surface: 'v2',
    method: 'PATCH',
    path: '/incidents/{id}/review',
    auth: 'scope',
    scope: 'alerts:write',
    summary: "Change parts of an incident's review",
    params: IdParams,
    body: IncidentReviewUpdate,
    response: IncidentReview,
  }),
  'incidents.reviewMarkdown': defineRoute({
    name: 'incidents.reviewMarkdown',
    surface: 'v2',
    method: 'GET',
    path: '/incidents/{id}/review.md',
    auth: 'scope',
    scope: 'alerts:read',
    summary: "An incident's review as a Markdown document (text/markdown), what people wrote escaped",
    params: IdParams,
    raw: true,
  }),
} satisfies Record<string, RouteContract>;
