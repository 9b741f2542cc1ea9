/**
 * `mobileClientTelemetry` (off by default): named events of this device sent to the hub, batched; nothing is
 * sent while the setting is off, and a failure is dropped (telemetry never queues).
 */
import type { TelemetryBatch } from '@svc/protocol';
import { hub } from '../../api/client';
import { currentSettings, deviceId } from './device';

type EventName = TelemetryBatch['events'][number]['name'];
type Detail = NonNullable<TelemetryBatch['events'][number]['detail']>;

const pending: TelemetryBatch['events'] = [];
let timer: ReturnType<typeof setTimeout> | null = null;
const flushMs = 2_000;
const maxPending = 50;

function flush(): void {
  timer = null;
  const events = pending.splice(0, pending.length);
  if (events.length === 0) return;
  void hub.call('mobile.telemetry', { body: { device_id: deviceId(), events } }).catch(() => undefined);
}

export function sendTelemetry(name: EventName, detail?: Detail): void {
  if (!currentSettings().mobileClientTelemetry) return;
  if (pending.length >= maxPending) return;
  pending.push({ name, ts: new Date().toISOString(), ...(detail ? { detail } : {}) });
  timer ??= setTimeout(flush, flushMs);
}
