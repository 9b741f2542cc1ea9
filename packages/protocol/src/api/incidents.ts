/** Incidents: the alerts of one asset grouped while the incident is open, resolved by people (decision 0017). */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { AlertSeverity } from './alerts.js';
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
} satisfies Record<string, RouteContract>;
