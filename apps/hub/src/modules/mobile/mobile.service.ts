/**
 * The mobile app's quick actions (an alert acknowledged or silenced, an incident resolved) behind a spent
 * device-owner proof, and its opt-in telemetry, bounded per request (contract) and per user and hour.
 */
import {
  mobileLimits,
  newId,
  type QuickAction,
  type QuickActionResult,
  type TelemetryBatch,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { ActionContext } from '../../access/principal.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { HubError } from '../../platform/hub-error.js';
import type { RetentionTask } from '../../platform/retention.js';
import type { AlertService } from '../alerts/alerts.service.js';
import type { UserDataHolder } from '../users/users.service.js';
import type { DeviceOwnerService } from './device-owner.service.js';
import {
  deleteCredentialsOf,
  deleteTelemetryOf,
  insertTelemetry,
  purgeTelemetry,
  telemetrySince,
} from './mobile.repository.js';

/** A deleted user's device-owner passkeys and telemetry go with them (decision 0087). */
export interface MobileService extends UserDataHolder {
  quickAction(ctx: ActionContext, input: QuickAction): Promise<QuickActionResult>;
  recordTelemetry(ctx: ActionContext, batch: TelemetryBatch): Promise<{ accepted: number }>;
  retention: RetentionTask;
}

export function createMobileService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  alerts: AlertService;
  deviceOwner: DeviceOwnerService;
}): MobileService {
  const { db, clock, alerts, deviceOwner } = deps;
  return {
    async quickAction(ctx, input) {
      deviceOwner.spend(ctx.principal, `quick-action:${input.action}:${input.id}`, input.proof);
      switch (input.action) {
        case 'incident.resolve':
          return { action: input.action, alert: null, incident: await alerts.resolveIncident(ctx, input.id) };
        case 'alert.acknowledge':
          return { action: input.action, alert: await alerts.acknowledge(ctx, input.id), incident: null };
        case 'alert.silence':
          return {
            action: input.action,
            alert: await alerts.silence(ctx, input.id, { duration_minutes: input.duration_minutes ?? 60 }),
            incident: null,
          };
      }
    },

    async forgetUser(trx, _ctx, user) {
      return {
        passkeys_deleted: await deleteCredentialsOf(trx, user.userId),
        telemetry_deleted: await deleteTelemetryOf(trx, user.userId),
      };
    },

    async recordTelemetry(ctx, batch) {
      const userId = ctx.principal.userId;
      if (userId === null) throw new HubError('forbidden', 'telemetry belongs to a signed-in user');
      const now = clock.now();
      const hourAgo = new Date(now.getTime() - 3_600_000).toISOString();
      const sent = await telemetrySince(db, userId, hourAgo);
      if (sent + batch.events.length > mobileLimits.telemetryEventsPerHour) {
        throw new HubError(
          'rate_limited',
          `at most ${String(mobileLimits.telemetryEventsPerHour)} telemetry events per user and hour`,
        );
      }
      const receivedAt = now.toISOString();
      const rows = batch.events.map((event) => {
        const detail = JSON.stringify(event.detail ?? {});
        if (Buffer.byteLength(detail) > mobileLimits.telemetryDetailBytes) {
          throw new HubError(
            'validation',
            `an event's detail is over ${String(mobileLimits.telemetryDetailBytes)} bytes`,
          );
        }
        return {
          id: newId('telemetryEvent'),
          user_id: userId,
          device_id: batch.device_id,
          name: event.name,
          detail,
          ts: event.ts,
          received_at: receivedAt,
        };
      });
      await insertTelemetry(db, rows);
      return { accepted: rows.length };
    },

    retention: {
      name: 'mobile_telemetry',
      days: () => mobileLimits.telemetryRetentionDays,
      purgeBatch: (cutoff, limit) => purgeTelemetry(db, cutoff, limit),
    },
  };
}
