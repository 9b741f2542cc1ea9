/**
 * The live values of terminal sessions another hub process runs (decision 0043): browsers attached, the
 * terminal's size and the last activity live in the owner's memory, and the row holds them only as they were at
 * create. A process asked about another's session asks its owner over the cluster bus (signed like every
 * message on it, decision 0042), with a short timeout: a process that does not answer in time is shown from its
 * rows, marked stale. The caller was authorized before anything is asked; the owner answers only values.
 */
import type { OwnedStates } from '../../platform/cluster/owned-state.js';
import type { Logger } from '../../platform/logger.js';
import type { LiveSession } from './live-sessions.js';
import { maxViewIds, sessionKind, type LiveValues } from './session-kind.js';

export type { LiveValues } from './session-kind.js';

const viewDefaults = {
  /** The owner answers from memory: longer means it is gone, or too busy to be worth waiting for. */
  timeoutMs: 500,
} as const;

export function liveValuesOf(session: LiveSession): LiveValues {
  return {
    id: session.id,
    cols: session.cols,
    rows: session.rows,
    attached: session.clients.size,
    last_activity_at: new Date(session.lastActivity).toISOString(),
  };
}

export interface SessionViewDeps {
  owned: OwnedStates;
  logger: Logger;
  /** This process's live sessions, as its own get shows them. */
  live: { get(id: string): LiveSession | undefined };
  timeoutMs?: number;
}

export interface SessionView {
  /**
   * The owner's live values of these sessions, by id; null when the owner did not answer in time (or
   * answered invalidly), so the caller shows the rows as not live.
   */
  ask(owner: string, sessionIds: readonly string[]): Promise<Map<string, LiveValues> | null>;
}

export function createSessionView(deps: SessionViewDeps): SessionView {
  const { logger, live } = deps;
  const timeoutMs = deps.timeoutMs ?? viewDefaults.timeoutMs;
  const sessions = deps.owned.kind(sessionKind);

  // Answers the other processes' questions about the sessions this one runs.
  sessions.answer('view', (data) => {
    const values: LiveValues[] = [];
    for (const id of new Set(data.session_ids)) {
      const session = live.get(id);
      if (session && !session.ended) values.push(liveValuesOf(session));
    }
    return { sessions: values };
  });

  async function askOnce(owner: string, ids: string[]): Promise<LiveValues[] | null> {
    try {
      return (await sessions.request(owner, 'view', { session_ids: ids }, { timeoutMs })).sessions;
    } catch (error) {
      logger.debug({ err: error, node: owner }, 'the hub process running a session did not answer in time');
    }
    return null;
  }

  return {
    async ask(owner, sessionIds) {
      const batches: string[][] = [];
      for (let i = 0; i < sessionIds.length; i += maxViewIds)
        batches.push(sessionIds.slice(i, i + maxViewIds));
      const answers = await Promise.all(batches.map((ids) => askOnce(owner, ids)));
      const asked = new Set(sessionIds);
      const values = new Map<string, LiveValues>();
      for (const answer of answers) {
        if (answer === null) return null;
        // Only what was asked: an owner cannot add sessions to the caller's page.
        for (const value of answer) if (asked.has(value.id)) values.set(value.id, value);
      }
      return values;
    },
  };
}
