/**
 * What the desktop session files share (desktop-sessions.ts the lifecycle, desktop-consoles.ts the consoles
 * and their relay, desktop-recordings.ts the recordings): a live session, the limits, and the owned-state kind.
 */
import type { DesktopSession } from '@svc/protocol';
import { Type } from 'typebox';
import type { Owner } from '../../access/session-access.js';
import { defineOwnedKind } from '../../platform/cluster/owned-state.js';
import { WireId } from '../../platform/cluster/wire-values.js';
import type { DesktopRelay } from './desktop-relay.js';
import type { DesktopSessionRow } from './desktop.repository.js';

export const desktopSessionLimits = {
  sessions: 64,
  sessionsPerOwner: 8,
  idleTimeoutS: 300,
  recordingsListed: 500,
} as const;

/** What a console needs of its session: whose it is (as terminals say it), which desktop, its recording. */
export interface ConsoleTarget {
  id: string;
  assetId: string;
  owner: Owner;
  recordingId: string | null;
}

export interface LiveSession extends ConsoleTarget {
  createdAt: string;
  /** Its one console: attached here, or relayed here from another hub process (decision 0058). */
  relay: Pick<DesktopRelay, 'close'> | null;
  idleTimer: NodeJS.Timeout | undefined;
}

/**
 * Desktop sessions as a kind of state owned by one process (decisions 0043, 0058): the owner node is the
 * `desktop_sessions` row's node. A console attached elsewhere is relayed to it on the stream relay (the
 * kind's `open`), as a terminal is; a close elsewhere asks it to end the session.
 */
export const desktopKind = defineOwnedKind({
  name: 'desktop',
  requests: {
    end: {
      request: Type.Object({ session_id: WireId }, { additionalProperties: false }),
      reply: Type.Object({ ok: Type.Boolean() }, { additionalProperties: false }),
    },
  },
  notifies: {},
});

/** A stored row's owner (migration 0024 wrote every older row as one of the two). */
export function ownerOfRow(row: { owner_type: string; owner_id: string }): Owner {
  return { owner_type: row.owner_type === 'api_key' ? 'api_key' : 'session', owner_id: row.owner_id };
}

export function presentDesktopSession(s: LiveSession): DesktopSession {
  return {
    id: s.id,
    asset_id: s.assetId,
    owner_type: s.owner.owner_type,
    owner: s.owner.owner_id,
    created_at: s.createdAt,
    idle_timeout_s: desktopSessionLimits.idleTimeoutS,
    stream_path: `/api/v2/desktop/sessions/${s.id}/stream`,
    attached: s.relay !== null,
    recording_id: s.recordingId,
  };
}

/** Another process's session as its row shows it (whether a console is attached is the owner's to say). */
export function presentDesktopSessionRow(row: DesktopSessionRow): DesktopSession {
  return {
    id: row.id,
    asset_id: row.asset_id,
    owner_type: ownerOfRow(row).owner_type,
    owner: row.owner_id,
    created_at: row.created_at,
    idle_timeout_s: desktopSessionLimits.idleTimeoutS,
    stream_path: `/api/v2/desktop/sessions/${row.id}/stream`,
    attached: false,
    recording_id: null,
  };
}
