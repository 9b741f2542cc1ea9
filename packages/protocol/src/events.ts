/** Event types, one catalog for webhooks, the event feed and the audit trail, each with its payload schema. */
import { Type, type Static, type TSchema } from 'typebox';
import { settingDomains } from './settings.js';

export const eventTypes = [
  'asset.created',
  'asset.updated',
  'asset.deleted',
  'asset.online',
  'asset.offline',
  'agent.connected',
  'agent.disconnected',
  'agent.enrolled',
  'agent.credential_rotated',
  'agent.credential_revoked',
  'enrollment_token.created',
  'enrollment_token.revoked',
  'heartbeat.update',
  'exec.completed',
  'service.started',
  'service.stopped',
  'service.restarted',
  'power.reboot',
  'power.shutdown',
  'power.wake',
  'container.started',
  'container.stopped',
  'container.restarted',
  'alert.fired',
  'alert.acknowledged',
  'alert.silenced',
  'alert.resolved',
  'incident.created',
  'incident.updated',
  'incident.resolved',
  'incident.review_updated',
  'schedule.completed',
  'maintenance.started',
  'maintenance.ended',
  'updates.changed',
  'update_run.started',
  'update_run.target_completed',
  'update_run.completed',
  'check.failed',
  'check.recovered',
  'check.certificate_expiring',
  'action.completed',
  'group.created',
  'group.updated',
  'group.deleted',
  'api_key.created',
  'api_key.updated',
  'api_key.deleted',
  'user.created',
  'user.updated',
  'discovery.completed',
  'settings.changed',
  'desktop.session_started',
  'desktop.session_attached',
  'desktop.session_ended',
  'desktop.recording_accessed',
  'session.started',
  'session.attached',
  'session.detached',
  'session.ended',
] as const;

export type EventType = (typeof eventTypes)[number];

/**
 * Every payload names the assets it concerns, so whom an event may reach is one rule (`eventVisible`):
 * an empty list means a fleet-level event, for unrestricted principals only.
 */
const assetIds = Type.Array(Type.String(), { maxItems: 10_000 });
const name = Type.String({ maxLength: 1024 });

function payload<P extends Record<string, TSchema>>(properties: P) {
  return Type.Object({ asset_ids: assetIds, ...properties }, { additionalProperties: false });
}

const assetNamed = payload({ asset_id: Type.String(), name });
const serviceChanged = payload({ asset_id: Type.String(), name, active_state: Type.String() });
const containerChanged = payload({ asset_id: Type.String(), container_id: Type.String(), name });
const powerSent = payload({ asset_id: Type.String(), accepted: Type.Boolean() });
const groupChanged = payload({ group_id: Type.String(), name });
/** A check's status changed: `failed` at the first failed run after up (or unknown), `recovered` after down. */
const checkChanged = payload({
  check_id: Type.String(),
  name,
  kind: Type.String(),
  target: Type.String(),
  consecutive_failures: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
});
/** How a fan-out went: one count per result status. */
const runCounts = {
  total: Type.Integer(),
  ok: Type.Integer(),
  timeout: Type.Integer(),
  offline: Type.Integer(),
  error: Type.Integer(),
};
const severity = Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')]);
const alertChanged = payload({
  alert_id: Type.String(),
  rule_id: Type.String(),
  asset_id: Type.String(),
  /** The asset's name when the alert fired, so a notification says which machine. */
  asset_name: Type.Optional(name),
  severity,
  summary: name,
});
const sessionChanged = payload({ session_id: Type.String(), kind: Type.String() });
const incidentChanged = payload({
  incident_id: Type.String(),
  asset_id: Type.String(),
  severity,
  title: name,
});

/** A maintenance window's occurrence; `asset_ids` are its assets when it started (groups resolved then). */
const maintenanceChanged = payload({
  window_id: Type.String(),
  name,
  reason: name,
  starts_at: Type.String({ format: 'date-time' }),
  ends_at: Type.String({ format: 'date-time' }),
});

/** An update run's progress (decision 0081); `asset_ids` are its targets (the one target, per result). */
const updateRunChanged = {
  run_id: Type.String(),
  mode: Type.String(),
};

const desktopSession = payload({ session_id: Type.String(), asset_id: Type.String(), owner: Type.String() });

export const eventPayloads = {
  'asset.created': assetNamed,
  'asset.updated': payload({ asset_id: Type.String(), name, fields: Type.Array(Type.String()) }),
  'asset.deleted': assetNamed,
  'asset.online': assetNamed,
  'asset.offline': assetNamed,
  'agent.connected': payload({
    asset_id: Type.String(),
    name,
    agent_version: Type.String(),
    remote_address: Type.Union([Type.String(), Type.Null()]),
  }),
  'agent.disconnected': assetNamed,
  'agent.enrolled': payload({
    asset_id: Type.String(),
    name,
    hostname: Type.String(),
    platform: Type.String(),
    enrollment_token_id: Type.String(),
  }),
  'agent.credential_rotated': assetNamed,
  'agent.credential_revoked': assetNamed,
  'enrollment_token.created': payload({ token_id: Type.String(), name }),
  'enrollment_token.revoked': payload({ token_id: Type.String(), name }),
  'heartbeat.update': payload({ asset_id: Type.String() }),
  'exec.completed': payload({
    asset_id: Type.String(),
    status: Type.String(),
    exit_code: Type.Union([Type.Integer(), Type.Null()]),
    duration_ms: Type.Number(),
    truncated: Type.Boolean(),
  }),
  'service.started': serviceChanged,
  'service.stopped': serviceChanged,
  'service.restarted': serviceChanged,
  'power.reboot': powerSent,
  'power.shutdown': powerSent,
  'power.wake': payload({
    asset_id: Type.String(),
    sent_via: Type.Union([Type.Literal('agent'), Type.Literal('hub')]),
  }),
  'container.started': containerChanged,
  'container.stopped': containerChanged,
  'container.restarted': containerChanged,
  'alert.fired': alertChanged,
  'alert.acknowledged': alertChanged,
  'alert.silenced': alertChanged,
  'alert.resolved': alertChanged,
  'incident.created': incidentChanged,
  'incident.updated': incidentChanged,
  'incident.resolved': incidentChanged,
  'incident.review_updated': payload({
    incident_id: Type.String(),
    asset_id: Type.String(),
    /** Which of summary, cause and follow_ups the change touched. */
    fields: Type.Array(Type.String()),
  }),
  'schedule.completed': payload({
    schedule_id: Type.String(),
    run_id: Type.String(),
    status: Type.String(),
    ...runCounts,
  }),
  'maintenance.started': maintenanceChanged,
  'maintenance.ended': maintenanceChanged,
  /** An asset's report of available updates differs from the one before (counts or reboot). */
  'updates.changed': payload({
    asset_id: Type.String(),
    updates: Type.Integer({ minimum: 0 }),
    security_updates: Type.Integer({ minimum: 0 }),
    reboot_required: Type.Boolean(),
  }),
  'update_run.started': payload({ ...updateRunChanged, total: Type.Integer({ minimum: 0 }) }),
  'update_run.target_completed': payload({
    ...updateRunChanged,
    asset_id: Type.String(),
    /** One of `updateTargetStatuses`: ok, failed, offline, skipped or cancelled. */
    status: Type.String(),
    changes: Type.Integer({ minimum: 0 }),
    exit_code: Type.Union([Type.Integer(), Type.Null()]),
    reboot_required: Type.Union([Type.Boolean(), Type.Null()]),
    rebooting: Type.Boolean(),
    error: Type.Union([Type.String({ maxLength: 1024 }), Type.Null()]),
  }),
  'update_run.completed': payload({
    ...updateRunChanged,
    /** One of `updateRunStatuses`: completed, stopped, cancelled or failed. */
    status: Type.String(),
    status_reason: Type.Union([Type.String({ maxLength: 1024 }), Type.Null()]),
    total: Type.Integer({ minimum: 0 }),
    ok: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
    offline: Type.Integer({ minimum: 0 }),
    skipped: Type.Integer({ minimum: 0 }),
    cancelled: Type.Integer({ minimum: 0 }),
  }),
  'check.failed': checkChanged,
  'check.recovered': checkChanged,
  'check.certificate_expiring': payload({
    check_id: Type.String(),
    name,
    target: Type.String(),
    cert_expires_at: Type.String(),
    days_left: Type.Integer(),
  }),
  'action.completed': payload({ action_id: Type.String(), ...runCounts }),
  'group.created': groupChanged,
  'group.updated': payload({ group_id: Type.String(), name, fields: Type.Array(Type.String()) }),
  'group.deleted': groupChanged,
  'api_key.created': payload({ key_id: Type.String(), name, prefix: Type.String(), role: Type.String() }),
  'api_key.updated': payload({ key_id: Type.String(), name, fields: Type.Array(Type.String()) }),
  'api_key.deleted': payload({ key_id: Type.String(), name }),
  'user.created': payload({ user_id: Type.String(), username: name, role: Type.String() }),
  'user.updated': payload({
    user_id: Type.String(),
    change: Type.Union([
      Type.Literal('role'),
      Type.Literal('password_reset'),
      Type.Literal('password_changed'),
      Type.Literal('two_factor_enabled'),
      Type.Literal('two_factor_disabled'),
      Type.Literal('recovery_codes_replaced'),
      // Decision 0087: one event for every change that ends a user's sessions or keys, on every process.
      Type.Literal('disabled'),
      Type.Literal('enabled'),
      Type.Literal('deleted'),
    ]),
  }),
  'discovery.completed': payload({
    found: Type.Integer({ minimum: 0 }),
    new_suggestions: Type.Integer({ minimum: 0 }),
    agents_answered: Type.Integer({ minimum: 0 }),
  }),
  // One settings domain changes at a time (PATCH /api/settings/{domain}); `keys` are those whose value moved.
  'settings.changed': payload({
    domain: Type.Enum<[...typeof settingDomains]>(settingDomains),
    keys: Type.Array(Type.String()),
  }),
  'desktop.session_started': desktopSession,
  'desktop.session_attached': desktopSession,
  'desktop.session_ended': payload({
    session_id: Type.String(),
    asset_id: Type.String(),
    owner: Type.String(),
    reason: name,
  }),
  'desktop.recording_accessed': payload({
    recording_id: Type.String(),
    session_id: Type.String(),
    asset_id: Type.String(),
  }),
  'session.started': sessionChanged,
  'session.attached': sessionChanged,
  'session.detached': sessionChanged,
  'session.ended': payload({
    session_id: Type.String(),
    kind: Type.String(),
    reason: Type.String({ maxLength: 256 }),
    exit_code: Type.Union([Type.Integer(), Type.Null()]),
  }),
} satisfies Record<EventType, TSchema>;

export type EventPayload<T extends EventType> = Static<(typeof eventPayloads)[T]>;

/** What a subscriber receives: `{id, type, ts, data}`, with `data` narrowed by `type`. */
export type EventEnvelope<T extends EventType = EventType> = {
  [K in T]: { id: string; type: K; ts: string; data: EventPayload<K> };
}[T];

export const eventEnvelopeSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.Union(eventTypes.map((t) => Type.Literal(t))),
    ts: Type.String({ format: 'date-time' }),
    data: Type.Object({ asset_ids: assetIds }),
  },
  { additionalProperties: false },
);

/**
 * Whom an event may reach: an unrestricted principal sees every event; a principal limited to some assets
 * sees an event when at least one asset it concerns is among its own. Fleet-level events (no assets) reach
 * unrestricted principals only.
 */
export function eventVisible(
  allowedAssets: ReadonlySet<string> | null,
  eventAssetIds: readonly string[],
): boolean {
  if (allowedAssets === null) return true;
  return eventAssetIds.some((id) => allowedAssets.has(id));
}
