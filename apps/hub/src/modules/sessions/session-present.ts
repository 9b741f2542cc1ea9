/**
 * Terminal sessions as callers see them: the stored row with the live values, from this process's memory or
 * asked of the live process that owns the session (decision 0043).
 */
import type { Session } from '@svc/protocol';
import type { LiveSessions } from './live-sessions.js';
import { liveValuesOf, type LiveValues, type SessionView } from './session-view.js';
import type { RemoteSessionRow } from './sessions.repository.js';

/**
 * A session as the caller sees it: the row, with the live values (`live`, from this process or the owner's)
 * while it runs; `stale` when it is live but no process could say how it is now (decision 0043).
 */
export function presentSession(row: RemoteSessionRow, live: LiveValues | undefined, stale = false): Session {
  return {
    id: row.id,
    kind: row.kind === 'desktop' ? 'desktop' : 'terminal',
    asset_id: row.asset_id,
    owner_type: row.owner_type === 'api_key' ? 'api_key' : 'session',
    owner_id: row.owner_id,
    state: row.state === 'live' ? 'live' : 'ended',
    cols: live?.cols ?? row.cols,
    rows: live?.rows ?? row.rows,
    attached: live?.attached ?? 0,
    stale,
    created_at: row.created_at,
    last_activity_at: live?.last_activity_at ?? row.last_activity_at,
    ended_at: row.ended_at,
    end_reason: row.end_reason,
    exit_code: row.exit_code,
    recording_id: row.recording_id,
  };
}

export interface SessionPresenter {
  /** This process's own live session's values. */
  localValues(id: string): LiveValues | undefined;
  presentAll(rows: RemoteSessionRow[]): Promise<Session[]>;
}

export function createSessionPresenter(deps: {
  live: Pick<LiveSessions, 'get'>;
  view: SessionView;
  nodeId: string;
  /** The live node that owns a live session, when it is not this one. */
  remoteOwner: (row: RemoteSessionRow) => string | null;
}): SessionPresenter {
  const { live, view, nodeId, remoteOwner } = deps;
  /** This process's own live session's values. */
  function localValues(id: string): LiveValues | undefined {
    const session = live.get(id);
    return session ? liveValuesOf(session) : undefined;
  }

  /**
   * Rows the caller may see, with the live values wherever they run: this process's own from memory, another
   * live process's asked of it (one question per owner, all at once). A live row no process answers for is
   * shown as stored, marked stale.
   */
  async function presentAll(rows: RemoteSessionRow[]): Promise<Session[]> {
    const byOwner = new Map<string, string[]>();
    for (const row of rows) {
      if (live.get(row.id)) continue;
      const owner = remoteOwner(row);
      if (owner === null) continue;
      const ids = byOwner.get(owner);
      if (ids) ids.push(row.id);
      else byOwner.set(owner, [row.id]);
    }
    const answered = new Map<string, Map<string, LiveValues>>();
    await Promise.all(
      [...byOwner].map(async ([owner, ids]) => {
        const values = await view.ask(owner, ids);
        if (values) answered.set(owner, values);
      }),
    );
    return rows.map((row) => {
      const own = localValues(row.id);
      // Ended, or ended here a moment ago (its row is being written): the row is the truth.
      if (own || row.state !== 'live' || row.node_id === nodeId) return presentSession(row, own);
      const owner = remoteOwner(row);
      const values = owner === null ? undefined : answered.get(owner);
      // The owner answered: the session is live there (values), or it just ended (the row follows).
      if (values) return presentSession(row, values.get(row.id));
      return presentSession(row, undefined, true);
    });
  }

  return { localValues, presentAll };
}
