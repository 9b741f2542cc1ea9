/**
 * The last fleet state the app saw (the URL cache of the transport policy): kept in localStorage so the shell
 * opened offline shows it, marked stale with its time. Cleared on a 401 and on sign-out.
 */
import type { Alert, Asset, SessionUser } from '@svc/protocol';

export interface FleetSnapshot {
  savedAt: string;
  user: SessionUser;
  assets: Asset[];
  alerts: Alert[];
}

const snapshotKey = 'svc.mobile.snapshot';

export function saveSnapshot(snapshot: FleetSnapshot): void {
  try {
    localStorage.setItem(snapshotKey, JSON.stringify(snapshot));
  } catch {
    // Storage full or refused: the app still works online.
  }
}

export function loadSnapshot(): FleetSnapshot | null {
  const raw = localStorage.getItem(snapshotKey);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as FleetSnapshot;
  } catch {
    return null;
  }
}

export function clearSnapshot(): void {
  localStorage.removeItem(snapshotKey);
}
