/**
 * Schema migrations, in code so they ship with the hub. Written with Kysely's schema builder only, so each
 * runs unchanged on SQLite and PostgreSQL. Never edit a migration that has shipped: add a new one.
 */
import type { Kysely } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely/migration';
import { webhooksAndNotifications } from './migrations/0007-webhooks.js';
import { alertsMigration } from './migrations/0008-alerts.js';
import { schedulesAndActions } from './migrations/0009-schedules-actions.js';
import { liveFeedMigration } from './migrations/0010-live-feed.js';
import { discoveryMigration } from './migrations/0011-discovery.js';
import { connectorsMigration } from './migrations/0012-connectors.js';
import { alertServiceRulesMigration } from './migrations/0013-alert-service-rules.js';
import { remoteSessionsMigration } from './migrations/0014-remote-sessions.js';
import { desktopCredentialsMigration } from './migrations/0015-desktop-credentials.js';
import { mobileMigration } from './migrations/0016-mobile.js';
import { clusterNodesMigration } from './migrations/0017-cluster-nodes.js';
import { agentNodeMigration } from './migrations/0018-agent-node.js';
import { clusterCoherenceMigration } from './migrations/0019-cluster-coherence.js';
import { sessionsAcrossProcessesMigration } from './migrations/0020-sessions-across-processes.js';
import { sharedStateMigration } from './migrations/0021-shared-state.js';
import { clusterLimitsAndDigestSendsMigration } from './migrations/0022-cluster-limits-and-digest-sends.js';
import { desktopOwnerTypeMigration } from './migrations/0024-desktop-owner-type.js';
import { assetNetworksMigration } from './migrations/0026-asset-networks.js';
import { nodeLeaseEpochsMigration } from './migrations/0027-node-lease-epochs.js';
import { maintenanceWindowsMigration } from './migrations/0029-maintenance-windows.js';
import { serviceChecksMigration } from './migrations/0030-service-checks.js';
import { incidentReviewsMigration } from './migrations/0031-incident-reviews.js';
import { updateRunsMigration } from './migrations/0032-update-runs.js';
import { agentSideChecksMigration } from './migrations/0033-agent-side-checks.js';
import { disabledUsersMigration } from './migrations/0034-disabled-users.js';
import { terminalSnippetsBookmarksMigration } from './migrations/0035-terminal-snippets-bookmarks.js';
import { assetFiltersMigration } from './migrations/0036-asset-filters.js';
import { metricRollupsMigration } from './migrations/0037-metric-rollups.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
const initial: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('username', 'text', (c) => c.notNull().unique())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('allowed_assets', 'text', (c) => c.notNull())
      .addColumn('is_restricted', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'text')
      .addColumn('user_id', 'text')
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .execute();

    await db.schema
      .createTable('assets')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('hostname', 'text')
      .addColumn('platform', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('ip_addresses', 'text', (c) => c.notNull())
      .addColumn('mac_address', 'text')
      .addColumn('tags', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('last_seen_at', 'text')
      .addColumn('agent_version', 'text')
      .addColumn('agent_connected_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('assets_name_idx').on('assets').columns(['name', 'id']).execute();
    await db.schema.createIndex('assets_status_idx').on('assets').columns(['status', 'name', 'id']).execute();
    await db.schema
      .createIndex('assets_platform_idx')
      .on('assets')
      .columns(['platform', 'name', 'id'])
      .execute();

    await db.schema
      .createTable('groups')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('groups_name_idx').on('groups').columns(['name', 'id']).execute();

    await db.schema
      .createTable('group_members')
      .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id').onDelete('cascade'))
      .addColumn('asset_id', 'text', (c) => c.notNull().references('assets.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('group_members_pk', ['group_id', 'asset_id'])
      .execute();
    await db.schema.createIndex('group_members_asset_idx').on('group_members').column('asset_id').execute();

    await db.schema
      .createTable('audit_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('ts', 'text', (c) => c.notNull())
      .addColumn('actor_type', 'text', (c) => c.notNull())
      .addColumn('actor_id', 'text')
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target_type', 'text')
      .addColumn('target_id', 'text')
      .addColumn('asset_id', 'text')
      .addColumn('ip', 'text')
      .addColumn('request_id', 'text')
      .addColumn('detail', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_events_ts_idx').on('audit_events').column('ts').execute();
    await db.schema
      .createIndex('audit_events_asset_idx')
      .on('audit_events')
      .columns(['asset_id', 'id'])
      .execute();
    await db.schema
      .createIndex('audit_events_action_idx')
      .on('audit_events')
      .columns(['action', 'id'])
      .execute();
  },
  async down(db: Kysely<any>) {
    for (const table of ['audit_events', 'group_members', 'groups', 'assets', 'api_keys', 'users']) {
      await db.schema.dropTable(table).execute();
    }
  },
};
const transportSecurity: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('settings')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('auth_method', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('last_seen_at', 'text', (c) => c.notNull())
      .addColumn('ip', 'text')
      .addColumn('user_agent', 'text')
      .execute();
    await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

    await db.schema.alterTable('users').addColumn('totp_secret', 'text').execute();
    await db.schema.alterTable('users').addColumn('totp_pending_secret', 'text').execute();
    await db.schema.alterTable('users').addColumn('totp_last_step', 'integer').execute();
    await db.schema.alterTable('users').addColumn('oidc_subject', 'text').execute();

    await db.schema
      .createTable('recovery_codes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('recovery_codes_user_idx').on('recovery_codes').column('user_id').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('recovery_codes').execute();
    await db.schema.dropTable('sessions').execute();
    await db.schema.dropTable('settings').execute();
  },
};
const agents: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('enrollment_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('max_uses', 'integer', (c) => c.notNull())
      .addColumn('uses', 'integer', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('agent_credentials')
      .addColumn('asset_id', 'text', (c) => c.primaryKey().references('assets.id').onDelete('cascade'))
      .addColumn('credential_hash', 'text', (c) => c.notNull().unique())
      .addColumn('enrollment_token_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('rotated_at', 'text')
      .execute();

    await db.schema.alterTable('assets').addColumn('agent_low_power', 'integer').execute();
    // One account per OpenID subject, across hub processes too (NULLs, local users, do not collide).
    await db.schema
      .createIndex('users_oidc_subject_idx')
      .on('users')
      .column('oidc_subject')
      .unique()
      .execute();

    await db.schema
      .createTable('metric_samples')
      .addColumn('asset_id', 'text', (c) => c.notNull())
      .addColumn('ts', 'text', (c) => c.notNull())
      .addColumn('cpu_percent', 'real', (c) => c.notNull())
      .addColumn('memory_used_bytes', 'bigint', (c) => c.notNull())
      .addColumn('memory_total_bytes', 'bigint', (c) => c.notNull())
      .addColumn('disk_used_bytes', 'bigint', (c) => c.notNull())
      .addColumn('disk_total_bytes', 'bigint', (c) => c.notNull())
      .addColumn('load1', 'real', (c) => c.notNull())
      .addColumn('net_rx_bytes', 'bigint', (c) => c.notNull())
      .addColumn('net_tx_bytes', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('metric_samples_asset_ts_idx')
      .on('metric_samples')
      .columns(['asset_id', 'ts'])
      .execute();
    await db.schema.createIndex('metric_samples_ts_idx').on('metric_samples').column('ts').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('metric_samples').execute();
    await db.schema.dropTable('agent_credentials').execute();
    await db.schema.dropTable('enrollment_tokens').execute();
  },
};
/**
 * Metric samples lose their index on ts alone: every sample inserted paid for a second index entry, and the
 * queries that used it read through the (asset_id, ts) index instead — retention and the fleet overview go
 * asset by asset (modules/metrics). Nothing else changes: the rows stay as they are.
 */
const metricsWithoutTsIndex: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.dropIndex('metric_samples_ts_idx').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.createIndex('metric_samples_ts_idx').on('metric_samples').column('ts').execute();
  },
};
/**
 * The hub's own host is marked on its asset (operations there that can read or run anything need an admin),
 * and a user can be made to choose a new password at the next sign-in (the owner's generated one at first run).
 */
const hubHostAndFirstRun: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('assets')
      .addColumn('hub_host', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('users')
      .addColumn('must_change_password', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('users').dropColumn('must_change_password').execute();
    await db.schema.alterTable('assets').dropColumn('hub_host').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */

export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_transport_security': transportSecurity,
  '0003_agents': agents,
  '0004_metrics_without_ts_index': metricsWithoutTsIndex,
  '0005_hub_host_and_first_run': hubHostAndFirstRun,
  '0007_webhooks_notifications': webhooksAndNotifications,
  '0008_alerts': alertsMigration,
  '0009_schedules_actions': schedulesAndActions,
  '0010_live_feed': liveFeedMigration,
  '0011_discovery': discoveryMigration,
  '0012_connectors': connectorsMigration,
  '0013_alert_service_rules': alertServiceRulesMigration,
  '0014_remote_sessions': remoteSessionsMigration,
  '0015_desktop_credentials': desktopCredentialsMigration,
  '0016_mobile': mobileMigration,
  '0017_cluster_nodes': clusterNodesMigration,
  '0018_agent_node': agentNodeMigration,
  '0019_cluster_coherence': clusterCoherenceMigration,
  '0020_sessions_across_processes': sessionsAcrossProcessesMigration,
  '0021_shared_state': sharedStateMigration,
  '0022_cluster_limits_and_digest_sends': clusterLimitsAndDigestSendsMigration,
  '0024_desktop_owner_type': desktopOwnerTypeMigration,
  '0026_asset_networks': assetNetworksMigration,
  '0027_node_lease_epochs': nodeLeaseEpochsMigration,
  '0029_maintenance_windows': maintenanceWindowsMigration,
  '0030_service_checks': serviceChecksMigration,
  '0031_incident_reviews': incidentReviewsMigration,
  '0032_update_runs': updateRunsMigration,
  '0033_agent_side_checks': agentSideChecksMigration,
  '0034_disabled_users': disabledUsersMigration,
  '0035_terminal_snippets_bookmarks': terminalSnippetsBookmarksMigration,
  '0036_asset_filters': assetFiltersMigration,
  '0037_metric_rollups': metricRollupsMigration,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};
