/**
 * Alerts and the rules that raise them (decision 0017). The interface fixes `GET /alerts` and the acknowledge
 * and silence operations; rule management under `/alerts/rules` is a documented extra.
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { ServiceParams } from './system.js';
import { AssetId, IdParams, Maybe, Name, NullableTimestamp, Timestamp, literals, paged } from './shared.js';

export const alertSeverities = ['info', 'warning', 'critical'] as const;
export type AlertSeverity = (typeof alertSeverities)[number];
export const AlertSeverity = literals(alertSeverities);

/**
 * What a rule watches: presence (offline), a metric above a threshold, a systemd service (service), or the
 * service checks about the asset (check: one failed `failures` times in a row; decision 0079).
 */
export const alertRuleKinds = ['offline', 'cpu', 'memory', 'disk', 'service', 'check'] as const;
export type AlertRuleKind = (typeof alertRuleKinds)[number];

/** `suppressed`: raised while its asset was in a maintenance window: recorded, not notified (decision 0078). */
export const alertStatuses = ['firing', 'acknowledged', 'silenced', 'suppressed', 'resolved'] as const;
export type AlertStatus = (typeof alertStatuses)[number];

export const alertLimits = {
  rules: 200,
  assetsPerRule: 1000,
  durationMinutes: 1440,
  checkFailures: 100,
  silenceMinutes: 60 * 24 * 30,
} as const;

export const AlertRule = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: literals(alertRuleKinds),
  severity: AlertSeverity,
  /** For metric rules: the percent the metric must stay above; null for `offline`. */
  threshold_percent: Maybe(Type.Number()),
  /** For `service` rules: the systemd unit that must be active; null for other kinds. */
  service: Maybe(Type.String()),
  /** How long the condition must hold before the alert fires. */
  duration_minutes: Type.Integer(),
  /** For `check` rules: failed runs in a row of one of the asset's checks that fire; null for other kinds. */
  failures: Maybe(Type.Integer()),
  /** The watched assets; empty means every asset (only for keys not limited to some assets). */
  asset_ids: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type AlertRule = Static<typeof AlertRule>;

const Threshold = Type.Number({
  exclusiveMinimum: 0,
  maximum: 100,
  description: 'Percent, above 0 and at most 100',
});
/** A systemd unit name, as the system module's service routes accept it. */
const RuleService = ServiceParams.properties.name;
const Duration = Type.Integer({ minimum: 0, maximum: alertLimits.durationMinutes });
const Failures = Type.Integer({ minimum: 1, maximum: alertLimits.checkFailures });
const RuleAssets = Type.Array(AssetId, { maxItems: alertLimits.assetsPerRule, uniqueItems: true });

export const AlertRuleCreate = Type.Object(
  {
    name: Name,
    kind: literals(alertRuleKinds),
    severity: Type.Optional(AlertSeverity),
    threshold_percent: Type.Optional(Maybe(Threshold)),
    /** Required for kind `service`, refused for the others. */
    service: Type.Optional(Maybe(RuleService)),
    duration_minutes: Type.Optional(Duration),
    /** For kind `check` (default 3), refused for the others. */
    failures: Type.Optional(Maybe(Failures)),
    asset_ids: Type.Optional(RuleAssets),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type AlertRuleCreate = Static<typeof AlertRuleCreate>;

export const AlertRuleUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    severity: Type.Optional(AlertSeverity),
    threshold_percent: Type.Optional(Maybe(Threshold)),
    /** Only for `service` rules (a new unit name). */
    service: Type.Optional(Maybe(RuleService)),
    duration_minutes: Type.Optional(Duration),
    /** Only for `check` rules. */
    failures: Type.Optional(Maybe(Failures)),
    asset_ids: Type.Optional(RuleAssets),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type AlertRuleUpdate = Static<typeof AlertRuleUpdate>;

export const Alert = Type.Object({
  id: Type.String(),
  rule_id: Type.String(),
  rule_name: Type.String(),
  asset_id: Type.String(),
  /** The asset's name when the alert fired. */
  asset_name: Type.String(),
  kind: literals(alertRuleKinds),
  severity: AlertSeverity,
  status: literals(alertStatuses),
  summary: Type.String(),
  /** The measured value when it fired (percent), null for `offline` and `service`. */
  value: Maybe(Type.Number()),
  incident_id: Maybe(Type.String()),
  fired_at: Timestamp,
  acknowledged_at: NullableTimestamp,
  acknowledged_by: Maybe(Type.String()),
  silenced_until: NullableTimestamp,
  resolved_at: NullableTimestamp,
  /** The maintenance window that held its asset when it was raised; null when none did. */
  suppressed_by: Maybe(Type.String()),
});
export type Alert = Static<typeof Alert>;

export const AlertListQuery = Type.Object({
  status: Type.Optional({
    ...literals([...alertStatuses, 'active'] as const),
    description: 'One status, or `active` for every alert not resolved (the default is every alert)',
  }),
  severity: Type.Optional(AlertSeverity),
  asset: Type.Optional(AssetId),
});
export type AlertListQuery = Static<typeof AlertListQuery>;

export const AlertSilence = Type.Object(
  {
    until: Type.Optional(Timestamp),
    duration_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: alertLimits.silenceMinutes })),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1 },
);
export type AlertSilence = Static<typeof AlertSilence>;

export const alertsContracts = {
  'alerts.list': defineRoute({
    name: 'alerts.list',
    surface: 'v2',
    method: 'GET',
    path: '/alerts',
    auth: 'scope',
    scope: 'alerts:read',
    summary: 'Alerts, newest first, filtered by status, severity and asset',
    query: paged(AlertListQuery),
    response: Alert,
    list: true,
  }),
  'alerts.acknowledge': defineRoute({
    name: 'alerts.acknowledge',
    surface: 'v2',
    method: 'POST',
    path: '/alerts/{id}/acknowledge',
    auth: 'scope',
    scope: 'alerts:write',
    summary: 'Acknowledge an alert',
    params: IdParams,
    response: Alert,
  }),
  'alerts.silence': defineRoute({
    name: 'alerts.silence',
    surface: 'v2',
    method: 'POST',
    path: '/alerts/{id}/silence',
    auth: 'scope',
    scope: 'alerts:write',
    summary: 'Silence an alert until a time (`until`) or for `duration_minutes`',
    params: IdParams,
    body: AlertSilence,
    response: Alert,
  }),
  'alerts.rules': defineRoute({
    name: 'alerts.rules',
    surface: 'v2',
    method: 'GET',
    path: '/alerts/rules',
    auth: 'scope',
    scope: 'alerts:read',
    summary: 'Alert rules (a documented extra, decision 0017)',
    query: paged(Type.Object({})),
    response: AlertRule,
    list: true,
  }),
  'alerts.ruleCreate': defineRoute({
    name: 'alerts.ruleCreate',
    surface: 'v2',
    method: 'POST',
    path: '/alerts/rules',
    auth: 'scope',
    scope: 'alerts:write',
    summary: 'Create an alert rule',
    body: AlertRuleCreate,
    response: AlertRule,
    successStatus: 201,
  }),
  'alerts.ruleUpdate': defineRoute({
    name: 'alerts.ruleUpdate',
    surface: 'v2',
    method: 'PATCH',
    path: '/alerts/rules/{id}',
    auth: 'scope',
    scope: 'alerts:write',
    summary: 'Change an alert rule',
    params: IdParams,
    body: AlertRuleUpdate,
    response: AlertRule,
  }),
  'alerts.ruleDelete': defineRoute({
    name: 'alerts.ruleDelete',
    surface: 'v2',
    method: 'DELETE',
    path: '/alerts/rules/{id}',
    auth: 'scope',
    scope: 'alerts:write',
    summary: 'Delete an alert rule (its open alerts are resolved)',
    params: IdParams,
    response: AlertRule,
  }),
} satisfies Record<string, RouteContract>;
