import type { RetentionTask } from '../../platform/retention.js';
import { defineModule } from '../module.js';
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
    start: () => {
      sessions.start();
    },
    close: () => sessions.close_(),
  });
}
