import type { Kysely } from 'kysely';
import type { AgentStreams } from '../../agents/agent-gateway.js';
import type { AgentCaller } from '../../agents/agent-call.js';
import type { Principal } from '../../access/principal.js';
import type { CredentialLifetime } from '../../http/credential-lifetime.js';
import type { Clock } from '../../platform/clock.js';
import type { OwnedStates } from '../../platform/cluster/owned-state.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { Logger } from '../../platform/logger.js';
import { interactiveTurnedOff } from '../../platform/policy-error.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule, subscriber } from '../module.js';
import { createDesktopSessionService } from './desktop-sessions.js';
import { desktopRawRoutes, desktopRoutes, desktopUpgrades } from './desktop.routes.js';
import { createDesktopCredentialService } from './desktop.service.js';

/**
 * Desktops (decision 0030): an asset's VNC password (write-only, released only to a session create), desktop
 * sessions relayed to the machine's own VNC server through its agent, and their recordings.
 */
export function createDesktopModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  box: SecretBox;
  audit: AuditService;
  events: EventBus;
  logger: Logger;
  assets: Pick<AssetService, 'missingIds'>;
  agents: AgentCaller;
  streams: AgentStreams;
  dataDir: string;
  interactiveEnabled: () => boolean;
  recordingEnabled: () => boolean;
  recordingRetentionDays: () => number;
  credentials: Pick<CredentialLifetime, 'onCredentialEnded' | 'onSessionEnded'>;
  /** The mobile module's device-owner proofs, spent by a create that carries one. */
  deviceOwner?: { spend(principal: Principal, purpose: string, proof: string): void };
  /** The other hub processes: desktop attaches and closes reach the process holding the session. */
  cluster?: OwnedStates;
}) {
  const desktopCredentials = createDesktopCredentialService(deps);
  const desktopSessions = createDesktopSessionService({
    ...deps,
    passwords: desktopCredentials,
  });
  return defineModule({
    name: 'desktop',
    services: { desktopCredentials, desktopSessions },
    handlers: desktopRoutes(desktopCredentials, desktopSessions),
    rawHandlers: desktopRawRoutes(desktopSessions),
    upgrades: desktopUpgrades(desktopSessions),
    retention: [
      {
        name: 'desktop_recordings',
        days: deps.recordingRetentionDays,
        purgeBatch: (cutoff, limit) => desktopSessions.purgeRecordings(cutoff, limit),
      },
    ],
    subscribers: [
      // Turning the policy off closes the desktops attached now, as it refuses new attaches.
      // On every process: each one closes the desktops attached to it.
      subscriber(
        ['settings.changed'],
        () => {
          if (!deps.interactiveEnabled()) desktopSessions.detachAll(interactiveTurnedOff);
        },
        'cluster',
      ),
      subscriber(['asset.deleted'], (event) => {
        desktopCredentials.forgetAsset(event.data.asset_id).catch((error: unknown) => {
          deps.logger.error({ err: error }, 'desktop: removing a deleted asset’s password failed');
        });
      }),
    ],
    start: () => {
      desktopSessions.start().catch((error: unknown) => {
        deps.logger.error({ err: error }, 'desktop: forgetting the sessions of stopped processes failed');
      });
    },
    close: () => desktopSessions.closeAll(),
  });
}
