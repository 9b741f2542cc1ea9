/**
 * What createHub (hub.ts) takes and gives: the options main.ts and the test harness start a hub with, and the
 * running hub with the services its callers use.
 */
import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import type { HubConfig } from '../config/env.js';
import type { MoveOptions, MoveOutcome } from '../agents/move-agents.js';
import type { ClusterAgentGateway } from '../agents/cluster-gateway.js';
import type { CredentialLifetime } from '../http/credential-lifetime.js';
import type { Clock } from '../platform/clock.js';
import type { Cluster } from '../platform/cluster/cluster.js';
import type { CacheInvalidation } from '../platform/cluster/invalidation.js';
import type { LeaseKeeper } from '../platform/cluster/leases.js';
import type { DatabaseOptions, HubDatabase } from '../platform/db/database.js';
import type { EventBus } from '../platform/event-bus.js';
import type { Logger } from '../platform/logger.js';
import type { Resolver } from '../platform/outbound/guarded-lookup.js';
import type { PasswordHasher } from '../platform/password-hasher.js';
import type { RetentionRunner } from '../platform/retention.js';
import type { SecretBox } from '../platform/secret-box.js';
import type { TlsManager } from '../platform/tls/tls-manager.js';
import type { AlertEvaluator } from '../modules/alerts/alert-evaluator.service.js';
import type { AlertService } from '../modules/alerts/alerts.service.js';
import type { AssetService } from '../modules/assets/assets.service.js';
import type { AuditService } from '../modules/audit/audit.service.js';
import type { LoginService } from '../modules/auth/login.service.js';
import type { TwoFactorService } from '../modules/auth/two-factor.service.js';
import type { ConnectorService, ConnectorServiceOptions } from '../modules/connectors/connectors.service.js';
import type { DesktopCredentialService } from '../modules/desktop/desktop.service.js';
import type { EnrollmentService } from '../modules/enrollment/enrollment.service.js';
import type { EventStreamLimits, EventStreamServer } from '../modules/events/events.module.js';
import type { ExecService } from '../modules/exec/exec.service.js';
import type { GroupService } from '../modules/groups/groups.service.js';
import type { MaintenanceAnnouncer } from '../modules/maintenance/maintenance-announcer.service.js';
import type { MaintenanceService } from '../modules/maintenance/maintenance.service.js';
import type { ApiKeyService } from '../modules/keys/keys.service.js';
import type {
  MetricRollups,
  MetricsBudget,
  MetricsPurger,
  MetricsStore,
} from '../modules/metrics/metrics.module.js';
import type { NotificationService } from '../modules/notifications/notifications.service.js';
import type { createChecksModule } from '../modules/checks/checks.module.js';
import type { RuntimeSettings } from '../modules/settings/settings.module.js';
import type { OidcAccounts } from '../modules/users/oidc-accounts.service.js';
import type { SessionService } from '../modules/users/session.service.js';
import type { OwnerBootstrapResult } from '../modules/users/users.module.js';
import type { UserService } from '../modules/users/users.service.js';
import type { WebhookDeliveryOptions, WebhookService } from '../modules/webhooks/webhooks.service.js';
import type { RemoteWriteOptions, RemoteWriteSender } from '../modules/prometheus/prometheus.module.js';

export interface HubOptions {
  config: HubConfig;
  logger: Logger;
  clock?: Clock;
  database?: Partial<DatabaseOptions>;
  /** Builds the HTTPS server around Fastify's handler (server.ts); absent for inject()-only use. */
  serverFactory?: (tls: TlsManager) => FastifyServerFactory;
  /** How this process restarts itself (main.ts); null where a supervisor must do it. */
  requestRestart?: () => void;
  /** The bounded bcrypt queue; tests pass one whose checks they hold, to fill it at will. */
  passwords?: PasswordHasher;
  /** Check every published event against its payload schema and throw on drift (the test harness sets it). */
  validateEvents?: boolean;
  /** The built web console; apps/web/dist beside the hub's package by default. */
  consoleDir?: string;
  /** The event stream's queue, frame and ping limits (protocol's eventStreamLimits by default). */
  eventStream?: Partial<EventStreamLimits>;
  /** How often retention runs (hourly by default); 0 leaves it to `hub.retention.runOnce()` (tests). */
  retentionIntervalMs?: number;
  /** The egress-guarded client's name resolver and trusted CA (tests fake DNS and trust their receiver). */
  outbound?: { resolver?: Resolver; ca?: string };
  /** Webhook delivery pacing (tests shorten the retry delays). */
  webhookDelivery?: Partial<WebhookDeliveryOptions>;
  /** Connector timeouts and the periodic check's interval (tests shorten them or turn the check off). */
  connectors?: Partial<ConnectorServiceOptions>;
  /** Prometheus remote-write pacing (tests turn the timer off and call `remoteWrite.sendNow()`). */
  remoteWrite?: Partial<RemoteWriteOptions>;
  /**
   * The cluster bus and node registry to use instead of those SVC_NATS_URL selects (tests pass buses of an
   * in-memory network). The hub starts the registry and closes both when it closes.
   */
  cluster?: Cluster;
}

export interface Services {
  audit: AuditService;
  apiKeys: ApiKeyService;
  assets: AssetService;
  groups: GroupService;
  users: UserService;
  sessions: SessionService;
  twoFactor: TwoFactorService;
  login: LoginService;
  /** Every bcrypt after start-up, through one bounded queue. */
  passwords: PasswordHasher;
  enrollment: EnrollmentService;
  exec: ExecService;
  oidcAccounts: OidcAccounts;
  alerts: AlertService;
  /** The alert rules' evaluation loop; tests run a pass with `tick()`. */
  alertEvaluator: AlertEvaluator;
  /** Connectors: tests run the periodic check with `checkAll()`. */
  connectors: ConnectorService;
  /** Desktop passwords: released only to a desktop session create (spec 5.5.2). */
  desktopCredentials: DesktopCredentialService;
  /** Webhooks and their delivery queue (tests of deliveries across processes). */
  webhooks: WebhookService;
  notifications: NotificationService;
  /** Prometheus remote write: tests run a pass with `sendNow()`. */
  remoteWrite: RemoteWriteSender;
  /** Maintenance windows, and the announcer of their occurrences (tests run a pass with `runDue()`). */
  maintenance: MaintenanceService;
  maintenanceAnnouncer: MaintenanceAnnouncer;
  /** Service checks' runs: tests run a pass at once instead of waiting for the timer. */
  checkRunner: ReturnType<typeof createChecksModule>['services']['runner'];
}

export interface Hub {
  app: FastifyInstance;
  database: HubDatabase;
  services: Services;
  owner: OwnerBootstrapResult;
  tls: TlsManager;
  box: SecretBox;
  /** Every agent of the cluster: this process's own through its WebSocket gateway, the others' over the bus. */
  gateway: ClusterAgentGateway;
  events: EventBus;
  /** Tells an open stream that the key it was opened with was revoked or expired. */
  credentials: CredentialLifetime;
  /** The event feed's clients (counts for the hub's status, tests and the benchmark). */
  eventStream: EventStreamServer;
  /** Purges what the Retention settings no longer keep, in batches, hourly (every module's tasks). */
  retention: RetentionRunner;
  /** Runtime settings and policies in memory: changed through the API, read by code paths at once. */
  settings: RuntimeSettings;
  /** The start of a clean stop: /readyz answers 503 `stopping` while everything else is served as before. */
  markStopping(): void;
  /**
   * After the drain: this process's agents are told to reconnect to the others (decision 0055), and new ones
   * are refused; resolves once they have gone or the wait ends.
   */
  tellAgentsToMove(options?: MoveOptions): Promise<MoveOutcome>;
  /** Agents' samples through their budgets into the store; deleted assets' histories purged. */
  metrics: { budget: MetricsBudget; store: MetricsStore; purger: MetricsPurger; rollups: MetricRollups };
  /**
   * The processes this one shares the fleet with (decisions 0038, 0040): bus, registry, leases, cache
   * invalidation; a cluster of one without SVC_NATS_URL.
   */
  cluster: Cluster & { leases: LeaseKeeper; invalidation: CacheInvalidation };
  close(): Promise<void>;
}
