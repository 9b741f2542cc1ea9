/**
 * Table types. Timestamps are ISO 8601 text, lists are JSON text and booleans are 0/1 integers, so that one
 * repository code path serves SQLite and PostgreSQL alike.
 */
import type { Generated, Kysely, Transaction } from 'kysely';

export interface ApiKeysTable {
  id: string;
  name: string;
  prefix: string;
  key_hash: string;
  role: string;
  scopes: string;
  allowed_assets: string;
  is_restricted: number;
  expires_at: string | null;
  /** The user the key acts for: the creator's user (a key made by a key inherits its user). */
  user_id: string | null;
  /** Who made it: a user id, or the id of the key that made it. */
  created_by: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface UsersTable {
  id: string;
  username: string;
  password_hash: string;
  role: string;
  created_at: string;
  updated_at: string;
  /** Sealed (SecretBox) TOTP secret once 2FA is active. */
  totp_secret: string | null;
  /** Sealed secret of a setup not yet confirmed with a code. */
  totp_pending_secret: string | null;
  /** Last TOTP time step accepted: a code from it or before cannot be used again. */
  totp_last_step: number | null;
  oidc_subject: string | null;
  /** 1 when the next sign-in must set a new password before anything else (the owner's first run). */
  must_change_password: number;
  /** When an admin disabled the account (migration 0034, decision 0087); null while it may sign in. */
  disabled_at: string | null;
}

interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
}

export interface SessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  auth_method: string;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
  ip: string | null;
  user_agent: string | null;
}

interface RecoveryCodesTable {
  id: string;
  user_id: string;
  code_hash: string;
  used_at: string | null;
  created_at: string;
}

export interface EnrollmentTokensTable {
  id: string;
  token_hash: string;
  name: string;
  expires_at: string;
  max_uses: number;
  uses: number;
  revoked_at: string | null;
  created_by: string | null;
  created_at: string;
}

export interface AgentCredentialsTable {
  asset_id: string;
  credential_hash: string;
  enrollment_token_id: string | null;
  created_at: string;
  rotated_at: string | null;
}

/** Numbers arrive as JS numbers from SQLite and as text for bigint columns from pg: read with Number(). */
export interface MetricSamplesTable {
  asset_id: string;
  ts: string;
  cpu_percent: number;
  memory_used_bytes: number | string;
  memory_total_bytes: number | string;
  disk_used_bytes: number | string;
  disk_total_bytes: number | string;
  load1: number;
  net_rx_bytes: number | string;
  net_tx_bytes: number | string;
}

/**
 * Five minutes of one asset's samples (migration 0037, decision 0097): bucket_s the bucket's start in epoch
 * seconds, n its samples, and per figure min, max and sum (numbers as text on PostgreSQL for bigint columns).
 */
type MetricRollupsTable = { asset_id: string; bucket_s: number | string; n: number | string } & Record<
  `${'min' | 'max' | 'sum'}_${Exclude<keyof MetricSamplesTable, 'asset_id' | 'ts'>}`,
  number | string
>;

export interface AssetsTable {
  id: string;
  name: string;
  hostname: string | null;
  platform: string;
  status: string;
  source: string;
  ip_addresses: string;
  /**
   * The IPv4 subnets its agent reports, a JSON list of `address/prefix` (migration 0026, decision 0052): what
   * a Wake-on-LAN relay must share. Null (or absent in rows written by older code) when no agent said.
   */
  ip_networks?: string | null;
  mac_address: string | null;
  tags: string;
  description: string | null;
  last_seen_at: string | null;
  agent_version: string | null;
  agent_connected_at: string | null;
  agent_low_power: number | null;
  /**
   * The node id of the hub process holding the agent's channel (migration 0018, decision 0039); null when no
   * process has held it since. Optional for rows written by code that predates it.
   */
  agent_node?: string | null;
  /** 1 for the asset of the machine the hub runs on (its local agent). */
  hub_host: number;
  created_at: string;
  updated_at: string;
  /** Set for `source: connector` (migration 0012): the connector, the upstream kind and id. */
  // Optional: null (or absent in a row written by code that predates them) for assets no connector brought.
  connector_id?: string | null;
  connector_kind?: string | null;
  external_id?: string | null;
  parent_asset_id?: string | null;
  connector_facts?: string | null;
}

export interface GroupsTable {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

interface GroupMembersTable {
  group_id: string;
  asset_id: string;
}

export interface AuditEventsTable {
  id: string;
  ts: string;
  actor_type: string;
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  asset_id: string | null;
  ip: string | null;
  request_id: string | null;
  detail: string;
}

// ---- Webhooks and notification channels (migration 0007) ----
export interface WebhooksTable {
  id: string;
  name: string;
  url: string;
  /** The secret, sealed by the secret box (context `webhook:<id>`). */
  secret_sealed: string;
  /** JSON array of event types; empty means all. */
  events: string;
  enabled: number;
  delivered_count: number;
  failed_attempts: number;
  dropped_count: number;
  last_delivered_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  /** `delivered` or `dropped`. */
  outcome: string;
  attempts: number;
  http_status: number | null;
  error: string | null;
  created_at: string;
  finished_at: string;
}

/** A delivery still to be made (migration 0010): removed when it is delivered or dropped. */
export interface WebhookPendingTable {
  /** The delivery id (`dlv_…`), the body's `id` and `X-Svc-Delivery`. */
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  /** RFC 3339: the body's `ts` and `X-Svc-Timestamp`. */
  ts: string;
  /** The exact body sent, which the signature covers. */
  body: string;
  attempts: number;
  next_attempt_at: string;
  created_at: string;
  /** The node sending it (decision 0040); null when written before claims existed. */
  claimed_by: string | null;
  /** Until when the claim holds unless its holder renews it; another process may take it over after. */
  claim_expires_at: string | null;
}

export interface NotificationChannelsTable {
  id: string;
  name: string;
  kind: string;
  enabled: number;
  /** JSON of the channel's settings, without the SMTP password. */
  settings: string;
  /** The SMTP password, sealed (context `notification:<id>`). */
  password_sealed: string | null;
  events: string;
  min_severity: string;
  /** JSON `{start, end, time_zone?}` or null. */
  quiet_hours: string | null;
  digest_window_s: number;
  sent_count: number;
  failed_count: number;
  suppressed_count: number;
  last_sent_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

// ---- Alerts and incidents (migration 0008) ----
export interface AlertRulesTable {
  id: string;
  name: string;
  kind: string;
  severity: string;
  threshold_percent: number | null;
  /** The watched systemd unit (`service` rules); null for other kinds. */
  service: string | null;
  duration_minutes: number;
  /** Failed runs in a row that fire (`check` rules, migration 0030); null or absent for other kinds. */
  failures?: number | null;
  /** JSON array of asset ids; empty: every asset. */
  asset_ids: string;
  enabled: number;
  created_at: string;
  updated_at: string;
}

export interface AlertsTable {
  id: string;
  rule_id: string;
  rule_name: string;
  asset_id: string;
  /** The asset's name when the alert fired. */
  asset_name: string;
  kind: string;
  severity: string;
  /** firing | acknowledged | resolved; silenced is silenced_until in the future. */
  state: string;
  summary: string;
  value: number | null;
  incident_id: string | null;
  fired_at: string;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  silenced_until: string | null;
  resolved_at: string | null;
  /** The maintenance window that held the asset when it was raised (migration 0029): state `suppressed`. */
  suppressed_by: string | null;
}

export interface IncidentsTable {
  id: string;
  asset_id: string;
  title: string;
  severity: string;
  /** open | resolved */
  state: string;
  opened_at: string;
  updated_at: string;
  resolved_at: string | null;
  resolved_by: string | null;
}

/** A saved terminal snippet (migration 0035): `scope` is personal or shared; owned as sessions are. */
export interface TerminalSnippetsTable {
  id: string;
  name: string;
  description: string | null;
  text: string;
  scope: string;
  owner_type: string;
  owner_id: string;
  created_at: string;
  updated_at: string;
}

/** A terminal bookmark (migration 0035): an asset and a working directory, one owner's. */
export interface TerminalBookmarksTable {
  id: string;
  name: string | null;
  asset_id: string;
  directory: string;
  owner_type: string;
  owner_id: string;
  created_at: string;
  updated_at: string;
}

/** A saved filter of the assets list (migration 0036): `criteria` is the list's query, JSON; one owner's. */
export interface AssetFiltersTable {
  id: string;
  name: string;
  criteria: string;
  owner_type: string;
  owner_id: string;
  created_at: string;
  updated_at: string;
}

/** An incident's review (migration 0031): what people wrote; `follow_ups` is JSON `[{text, done}]`. */
export interface IncidentReviewsTable {
  incident_id: string;
  summary: string;
  cause: string;
  follow_ups: string;
  updated_at: string;
  updated_by: string | null;
}

// Saved actions and schedules (migration 0009). Targets are a JSON list or null (then group_id is set).
export interface SavedActionsTable {
  id: string;
  name: string;
  description: string | null;
  command: string;
  timeout_s: number;
  targets: string | null;
  group_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface SchedulesTable {
  id: string;
  name: string;
  cron: string;
  timezone: string;
  command: string | null;
  action_id: string | null;
  timeout_s: number;
  targets: string | null;
  group_id: string | null;
  /** JSON: the creator's role and allowed assets, which every run acts with. */
  run_as: string;
  /** 0 while paused (then `next_run_at` is null). Migration 0010. */
  enabled: number;
  next_run_at: string | null;
  last_run_at: string | null;
  created_at: string;
  /** 1: a tick runs only while every target is in a maintenance window (migration 0029). */
  only_in_window: number;
}

// Maintenance windows (migration 0029, decision 0078). Targets are JSON lists of ids.
export interface MaintenanceWindowsTable {
  id: string;
  name: string;
  reason: string;
  /** one_off | recurring */
  kind: string;
  asset_ids: string;
  group_ids: string;
  /** One-off only. */
  starts_at: string | null;
  ends_at: string | null;
  /** Recurring only. */
  cron: string | null;
  duration_minutes: number | null;
  timezone: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** An occurrence announced: inserted once when seen started, `ended_at` set once when seen ended. */
export interface MaintenanceOccurrencesTable {
  window_id: string;
  starts_at: string;
  ends_at: string;
  name: string;
  reason: string;
  /** JSON: the assets it held when it started (groups resolved then). */
  asset_ids: string;
  started_at: string;
  ended_at: string | null;
}

export interface ScheduleRunsTable {
  id: string;
  schedule_id: string;
  tick_at: string;
  status: string;
  ticks: number;
  started_at: string | null;
  finished_at: string | null;
  summary: string | null;
  results: string;
  error: string | null;
  /** The node that runs it (decision 0040); null for runs from before, and for runs that never started. */
  node_id: string | null;
}

/** A service check and its state (migration 0030, decision 0079). */
export interface ServiceChecksTable {
  id: string;
  name: string;
  kind: string;
  target: string;
  asset_id: string | null;
  /** The asset whose agent runs the check (migration 0033, decision 0084); null: the hub. */
  run_from_asset_id: string | null;
  interval_s: number;
  timeout_s: number;
  /** JSON list of status codes; null for any 2xx or 3xx. */
  expected_status: string | null;
  expected_body: string | null;
  tls_verify: number;
  cert_warn_days: number;
  enabled: number;
  status: string;
  consecutive_failures: number;
  last_run_at: string | null;
  last_latency_ms: number | null;
  last_status_code: number | null;
  last_error: string | null;
  cert_expires_at: string | null;
  /** The notAfter the expiry warning was last published for (one event per certificate). */
  cert_warned_for: string | null;
  next_run_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ServiceCheckResultsTable {
  id: string;
  check_id: string;
  at: string;
  /** 0: the check could not be run (its agent offline or unable); neither up nor down (migration 0033). */
  ran: number;
  ok: number;
  latency_ms: number | null;
  status_code: number | null;
  error: string | null;
  cert_expires_at: string | null;
}

/** A second sign-in step waiting for its code (decision 0044): only the token's hash is stored. */
interface SignInChallengesTable {
  token_hash: string;
  user_id: string;
  /** A hash of the password hash the challenge was opened under: a password reset in between voids it. */
  password_check: string;
  expires_at: string;
  failures: number;
  /** The attempt checking a code now, and until when its claim holds. */
  claim: string | null;
  claim_expires_at: string | null;
}

/** An open digest window of a notification target (`channel:<id>`, `push:<id>`; decision 0044). */
interface NotificationDigestsTable {
  target: string;
  ends_at: string;
  /** Items collected in the window, stored or (past the digest's bound) only counted. */
  item_count: number;
}

interface NotificationDigestItemsTable {
  id: string;
  target: string;
  /** The item as JSON, read back with its schema. */
  item: string;
  created_at: string;
}

/** A wrong second-factor code (or a check under way), in one of a user's limited slots (decision 0047). */
interface TwoFactorFailuresTable {
  user_id: string;
  /** 0 to the limit - 1: a user never has more rows than the limit. */
  slot: number;
  /** When the failure stops counting; the slot is free from then on. */
  expires_at: string;
  /** The check that took the slot: a check that passes frees only its own. */
  claim: string;
}

/** A digest window taken for sending, leased to one process until it is sent (decision 0047). */
interface NotificationDigestSendsTable {
  id: string;
  target: string;
  /** The items as stored in the window (a JSON array of JSON texts), oldest first. */
  items: string;
  /** Items counted past the digest's bound. */
  more: number;
  /** The claim of the process sending it now. */
  claimed_by: string;
  /** Until when that claim holds; after it, any process takes the send again. */
  lease_until: string;
  created_at: string;
}

/** A lease on work that runs on one hub process at a time (decision 0040). */
interface ClusterLeasesTable {
  name: string;
  /** The node id holding it. */
  holder: string;
  expires_at: string;
}

export interface DiscoverySuggestionsTable {
  id: string;
  /** What was found, unique: `container:<asset>:<name>`, `port:<asset>:<protocol>:<port>`, `host:<address>`. */
  key: string;
  kind: string;
  status: string;
  asset_id: string | null;
  title: string;
  /** JSON */
  detail: string;
  first_seen_at: string;
  last_seen_at: string;
  decided_at: string | null;
  decided_by: string | null;
  created_asset_id: string | null;
}

// ---- Connectors and declared dependency links (migration 0012) ----
export interface ConnectorsTable {
  id: string;
  kind: string;
  name: string;
  base_url: string;
  username: string | null;
  credentials_sealed: string;
  tls_mode: string;
  tls_ca: string | null;
  tls_fingerprint: string | null;
  enabled: number;
  health: string;
  last_error: string | null;
  last_checked_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DependencyLinksTable {
  id: string;
  from_asset_id: string;
  to_asset_id: string;
  label: string | null;
  created_at: string;
}

// ---- The mobile companion (migration 0016) ----
interface IdempotencyRecordsTable {
  /** `key:<api key id>` or `user:<user id>`: a key is only ever replayed for the credential that sent it. */
  credential: string;
  key: string;
  /** The contract name and the resource it acted on: a key reused for another request is refused. */
  route: string;
  target: string;
  /** JSON of the answer's data; null while the first request still runs. */
  response: string | null;
  created_at: string;
}

export interface PushSubscriptionsTable {
  id: string;
  user_id: string;
  device_id: string;
  endpoint: string;
  /** The browser's P-256 public key and auth secret, base64url (RFC 8291). */
  p256dh: string;
  auth: string;
  min_severity: string;
  /** JSON QuietHours, or null. */
  quiet_hours: string | null;
  digest_window_s: number;
  sent_count: number;
  failed_count: number;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebauthnCredentialsTable {
  id: string;
  user_id: string;
  device_id: string;
  /** base64url */
  credential_id: string;
  /** COSE public key, base64url */
  public_key: string;
  counter: number;
  created_at: string;
  last_used_at: string | null;
}

export interface MobileTelemetryTable {
  id: string;
  user_id: string;
  device_id: string;
  name: string;
  /** JSON */
  detail: string;
  ts: string;
  received_at: string;
}

// ---- Package updates (migration 0032, decision 0081) ----
/** An asset's last report of available updates (booleans as 0/1). */
export interface UpdateReportsTable {
  asset_id: string;
  manager: string | null;
  updates: number | null;
  security_updates: number | null;
  truncated: number;
  reboot_required: number | null;
  last_patched_at: string | null;
  /** The last attempt; `reported_at` the last that gave a report. */
  checked_at: string | null;
  reported_at: string | null;
  error: string | null;
  /** JSON AvailableUpdate[] of the last report. */
  packages: string;
}

export interface UpdateRunsTable {
  id: string;
  mode: string;
  selection: string;
  /** JSON string[] */
  packages: string;
  reboot_if_required: number;
  refresh: number;
  concurrency: number;
  max_failures: number | null;
  timeout_minutes: number;
  /** JSON string[] as asked, or null with a group. */
  targets: string | null;
  group_id: string | null;
  start: string;
  scheduled_at: string | null;
  window_id: string | null;
  window_ends_at: string | null;
  status: string;
  status_reason: string | null;
  /** JSON RunAs: the creator, whose rights the run acts with when it starts. */
  run_as: string;
  created_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** The hub process running it (decision 0040): a run of a node gone is finished as failed. */
  node_id: string | null;
}

export interface UpdateRunTargetsTable {
  run_id: string;
  asset_id: string;
  position: number;
  asset_name: string;
  status: string;
  manager: string | null;
  changes: number;
  /** JSON PlannedChange[] (bounded). */
  change_list: string;
  changes_truncated: number;
  exit_code: number | null;
  timed_out: number;
  reboot_required: number | null;
  rebooting: number;
  output: string;
  output_truncated: number;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
}

export interface Database {
  api_keys: ApiKeysTable;
  users: UsersTable;
  assets: AssetsTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
  audit_events: AuditEventsTable;
  settings: SettingsTable;
  sessions: SessionsTable;
  recovery_codes: RecoveryCodesTable;
  enrollment_tokens: EnrollmentTokensTable;
  agent_credentials: AgentCredentialsTable;
  metric_samples: MetricSamplesTable;
  metric_rollups: MetricRollupsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_pending: WebhookPendingTable;
  cluster_leases: ClusterLeasesTable;
  sign_in_challenges: SignInChallengesTable;
  notification_digests: NotificationDigestsTable;
  notification_digest_items: NotificationDigestItemsTable;
  notification_digest_sends: NotificationDigestSendsTable;
  two_factor_failures: TwoFactorFailuresTable;
  notification_channels: NotificationChannelsTable;
  alert_rules: AlertRulesTable;
  alerts: AlertsTable;
  incidents: IncidentsTable;
  incident_reviews: IncidentReviewsTable;
  saved_actions: SavedActionsTable;
  schedules: SchedulesTable;
  schedule_runs: ScheduleRunsTable;
  maintenance_windows: MaintenanceWindowsTable;
  maintenance_occurrences: MaintenanceOccurrencesTable;
  service_checks: ServiceChecksTable;
  update_reports: UpdateReportsTable;
  update_runs: UpdateRunsTable;
  update_run_targets: UpdateRunTargetsTable;
  service_check_results: ServiceCheckResultsTable;
  discovery_suggestions: DiscoverySuggestionsTable;
  connectors: ConnectorsTable;
  dependency_links: DependencyLinksTable;
  desktop_credentials: DesktopCredentialsTable;
  desktop_recordings: DesktopRecordingsTable;
  desktop_recording_chunks: DesktopRecordingChunksTable;
  desktop_sessions: DesktopSessionsTable;
  remote_sessions: RemoteSessionsTable;
  session_recordings: SessionRecordingsTable;
  session_recording_chunks: SessionRecordingChunksTable;
  terminal_snippets: TerminalSnippetsTable;
  terminal_bookmarks: TerminalBookmarksTable;
  asset_filters: AssetFiltersTable;
  idempotency_records: IdempotencyRecordsTable;
  push_subscriptions: PushSubscriptionsTable;
  webauthn_credentials: WebauthnCredentialsTable;
  mobile_telemetry: MobileTelemetryTable;
  cluster_nodes: ClusterNodesTable;
}

// ---- Several hub processes (migration 0017) ----
/** A hub process's lease: renewed while it runs, removed when it leaves or is found expired. */
interface ClusterNodesTable {
  node_id: string;
  host_name: string;
  pid: number;
  started_at: string;
  lease_until: string;
  /** The registration this lease belongs to (migration 0027, decision 0053): 1, 2, … per process. */
  epoch: Generated<number>;
}

/** An asset's desktop (VNC) password, sealed; bound to the asset by the seal's context. */
export interface DesktopCredentialsTable {
  asset_id: string;
  password_sealed: string;
  username_sealed: string | null;
  updated_at: string;
}

/** A desktop recording's facts; its bytes are `<data dir>/recordings/desktop/<id>.svcrfb`. */
export interface DesktopRecordingsTable {
  id: string;
  session_id: string;
  asset_id: string;
  /** The session's owner, who may fetch it (and admins): `session` (a user id) or `api_key` (a key id). */
  owner_type: string;
  owner_id: string;
  started_at: string;
  ended_at: string | null;
  bytes: number;
}

/** A desktop recording's bytes, base64 in order of `seq` (migration 0020). */
interface DesktopRecordingChunksTable {
  recording_id: string;
  seq: number;
  data: string;
}

/** A live desktop session and the node (hub process) holding it in memory (migration 0020). */
export interface DesktopSessionsTable {
  id: string;
  asset_id: string;
  /** As `remote_sessions` (migration 0024): `session` (a user id) or `api_key` (a key id). */
  owner_type: string;
  owner_id: string;
  node_id: string;
  created_at: string;
}

/** A terminal or desktop session through an agent (migration 0014). */
export interface RemoteSessionsTable {
  id: string;
  kind: string;
  asset_id: string;
  /** `session` (a console user: owner_id is the user id) or `api_key` (owner_id is the key id). */
  owner_type: string;
  owner_id: string;
  /** `live` or `ended`. */
  state: string;
  cols: number;
  rows: number;
  created_at: string;
  last_activity_at: string;
  ended_at: string | null;
  end_reason: string | null;
  exit_code: number | null;
  recording_id: string | null;
  /** The node (hub process) that owns the live session (migration 0020); null on older rows. */
  node_id: string | null;
}

export interface SessionRecordingsTable {
  id: string;
  session_id: string;
  asset_id: string;
  owner_type: string;
  owner_id: string;
  size_bytes: number;
  truncated: number;
  created_at: string;
  ended_at: string | null;
}

/** A recording's asciicast v2 lines, in order of `seq` (chunk 0 holds the header). */
interface SessionRecordingChunksTable {
  recording_id: string;
  seq: number;
  data: string;
}

/** What repositories run queries on: the database or a transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

/**
 * Where a table's queries may be built: a folder or file under apps/hub/src. Modules own their area's
 * tables; below the modules, the agent channel owns its credentials and platform/ the tables of the
 * process itself. Everyone else asks the owner (its service, or a port it hands down). data-owners.test.ts
 * fails when code outside an owner builds a query on its table.
 */
type TableOwner = `modules/${string}` | 'agents' | `platform/${string}`;

/** Each table's one owner; a table added to `Database` without one fails to compile. */
export const tableOwners = {
  api_keys: 'modules/keys',
  users: 'modules/users',
  sessions: 'modules/users',
  assets: 'modules/assets',
  groups: 'modules/groups',
  group_members: 'modules/groups',
  audit_events: 'modules/audit',
  settings: 'platform/db/key-values.ts',
  recovery_codes: 'modules/auth',
  sign_in_challenges: 'modules/auth',
  two_factor_failures: 'modules/auth',
  enrollment_tokens: 'modules/enrollment',
  agent_credentials: 'agents',
  metric_samples: 'modules/metrics',
  metric_rollups: 'modules/metrics',
  webhooks: 'modules/webhooks',
  webhook_deliveries: 'modules/webhooks',
  webhook_pending: 'modules/webhooks',
  cluster_leases: 'platform/cluster',
  cluster_nodes: 'platform/cluster',
  notification_digests: 'modules/notifications',
  notification_digest_items: 'modules/notifications',
  notification_digest_sends: 'modules/notifications',
  notification_channels: 'modules/notifications',
  push_subscriptions: 'modules/notifications',
  alert_rules: 'modules/alerts',
  alerts: 'modules/alerts',
  incidents: 'modules/alerts',
  incident_reviews: 'modules/incidents',
  saved_actions: 'modules/actions',
  schedules: 'modules/schedules',
  schedule_runs: 'modules/schedules',
  maintenance_windows: 'modules/maintenance',
  maintenance_occurrences: 'modules/maintenance',
  service_checks: 'modules/checks',
  update_reports: 'modules/updates',
  update_runs: 'modules/updates',
  update_run_targets: 'modules/updates',
  service_check_results: 'modules/checks',
  discovery_suggestions: 'modules/discovery',
  connectors: 'modules/connectors',
  dependency_links: 'modules/dependencies',
  desktop_credentials: 'modules/desktop',
  desktop_recordings: 'modules/desktop',
  desktop_recording_chunks: 'modules/desktop',
  desktop_sessions: 'modules/desktop',
  remote_sessions: 'modules/sessions',
  session_recordings: 'modules/sessions',
  session_recording_chunks: 'modules/sessions',
  terminal_snippets: 'modules/snippets',
  terminal_bookmarks: 'modules/bookmarks',
  asset_filters: 'modules/filters',
  idempotency_records: 'platform/idempotency.ts',
  webauthn_credentials: 'modules/mobile',
  mobile_telemetry: 'modules/mobile',
} as const satisfies { readonly [Table in keyof Database]: TableOwner };
