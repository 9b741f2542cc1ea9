/**
 * What the hub's modules are built from (hub/*-modules.ts): the platform, the cluster and the agents, made
 * before any module.
 */
import type { HubConfig } from '../config/env.js';
import type { CredentialLifetime } from '../http/credential-lifetime.js';
import type { InternalDispatch } from '../http/internal-dispatch.js';
import type { Clock } from '../platform/clock.js';
import type { HubDatabase } from '../platform/db/database.js';
import type { Logger } from '../platform/logger.js';
import type { LiveOutbound } from '../platform/outbound/live-policy.js';
import type { PasswordHasher } from '../platform/password-hasher.js';
import type { SecretBox } from '../platform/secret-box.js';
import type { PrometheusTelemetry } from '../platform/telemetry/prometheus.js';
import type { TlsManager } from '../platform/tls/tls-manager.js';
import type { createAuditModule } from '../modules/audit/audit.module.js';
import type { createAuthModule } from '../modules/auth/auth.module.js';
import type { ConnectorServiceOptions } from '../modules/connectors/connectors.service.js';
import type { EventStreamLimits } from '../modules/events/events.module.js';
import type { MetricsIntake } from '../modules/metrics/metrics.module.js';
import type { RemoteWriteOptions } from '../modules/prometheus/prometheus.module.js';
import type { RuntimeSettings } from '../modules/settings/settings.module.js';
import type { WebhookDeliveryOptions } from '../modules/webhooks/webhooks.service.js';
import type { ConnectedAgents } from './agent-setup.js';
import type { JoinedCluster } from './cluster-setup.js';

/** What the modules are built from: the platform, the cluster and the agents, made before any module. */
export interface ModuleParts {
  config: HubConfig;
  logger: Logger;
  clock: Clock;
  database: HubDatabase;
  box: SecretBox;
  tls: TlsManager;
  telemetry: PrometheusTelemetry;
  startedAt: Date;
  cluster: JoinedCluster;
  agents: ConnectedAgents;
  runtimeSettings: RuntimeSettings;
  credentials: CredentialLifetime;
  /** Routes run inside the hub for a caller already authenticated (the MCP server's tools); app set later. */
  internalDispatch: InternalDispatch;
  metricsIntake: MetricsIntake;
  passwords: PasswordHasher;
  isSecure: Parameters<typeof createAuthModule>[0]['isSecure'];
  rateLimiters: JoinedCluster['rateLimiters'];
  /** The egress-guarded client webhooks, notifications and connectors dial out through. */
  outbound: LiveOutbound;
  requestRestart: (() => void) | null;
  eventStream: Partial<EventStreamLimits> | undefined;
  webhookDelivery: Partial<WebhookDeliveryOptions> | undefined;
  connectors: Partial<ConnectorServiceOptions> | undefined;
  remoteWrite: Partial<RemoteWriteOptions> | undefined;
}

/** The parts nearly every module takes. */
export function baseOf(parts: ModuleParts, audit: ReturnType<typeof createAuditModule>) {
  return {
    db: parts.database.db,
    clock: parts.clock,
    audit: audit.services.audit,
    events: parts.cluster.events,
  };
}
