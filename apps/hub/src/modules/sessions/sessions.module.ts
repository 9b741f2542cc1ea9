import type { RetentionTask } from '../../platform/retention.js';
import { defineModule, subscriber } from '../module.js';
import { deleteRecordingsBefore } from './sessions.repository.js';
import { sessionRawRoutes, sessionRoutes, sessionUpgrades } from './sessions.routes.js';
import { createSessionService, type SessionServiceDeps } from './sessions.service.js';

/**
 * Remote sessions: terminals on assets through the agent channel's streams, attached by WebSocket,
 * persistent for a grace period, recorded as asciicast v2 (retention.recordings_days). Issue 16.
 */
export function createSessionsModule(deps: SessionServiceDeps & { retentionDays: () => number }) {
  const sessions = createSessionService(deps);
  const retention: RetentionTask = {
    name: 'session_recordings',
    days: deps.retentionDays,
    purgeBatch: (cutoff, limit) => deleteRecordingsBefore(deps.db, cutoff, limit),
  };
  return defineModule({
    name: 'sessions',
    services: { sessions },
    handlers: sessionRoutes(sessions),
    rawHandlers: sessionRawRoutes(sessions),
    upgrades: sessionUpgrades(sessions),
    retention: [retention],
    subscribers: [
      // Turning the policy off closes the terminals attached now, as it refuses new attaches, with the code
      // and reason desktops close with. On every process: each one closes the browsers attached to it.
      subscriber(
        ['settings.changed'],
        () => {
          if (!deps.settings.interactiveEnabled()) sessions.detachAll();
        },
        'cluster',
      ),
    ],
    start: () => {
      sessions.start();
    },
    close: () => sessions.close_(),
  });
}
