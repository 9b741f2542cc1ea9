/**
 * The live values of terminal sessions another hub process runs (decision 0043): browsers attached, the
 * terminal's size and the last activity live in the owner's memory, and the row holds them only as they were at
 * create. A process asked about another's session asks its owner over the cluster bus (signed like every
 * message on it, decision 0042), with a short timeout: a process that does not answer in time is shown from its
 * rows, marked stale. The caller was authorized before anything is asked; the owner answers only values.
 */
import { Compile } from 'typebox/compile';
import { Type, type Static } from 'typebox';
import { streamLimits } from '@svc/protocol';
import type { ClusterBus } from '../../platform/cluster/cluster-bus.js';
import type { Logger } from '../../platform/logger.js';
import type { LiveSession } from './live-sessions.js';

const viewSubject = (node: string) => `svc.node.${node}.session.view`;

/** What one page of a list may ask of one owner; a list's page is at most 500 rows. */
const maxIds = 500;
const viewDefaults = {
  /** The owner answers from memory: longer means it is gone, or too busy to be worth waiting for. */
  timeoutMs: 500,
} as const;

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
const ViewRequest = Type.Object(
  { session_ids: Type.Array(Id, { minItems: 1, maxItems: maxIds }) },
  { additionalProperties: false },
);
const LiveValues = Type.Object(
  {
    id: Id,
    cols: Type.Integer({ minimum: streamLimits.terminalCols.min, maximum: streamLimits.terminalCols.max }),
    rows: Type.Integer({ minimum: streamLimits.terminalRows.min, maximum: streamLimits.terminalRows.max }),
    attached: Type.Integer({ minimum: 0, maximum: 10_000 }),
    last_activity_at: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?Z$' }),
  },
  { additionalProperties: false },
);
/** The owner's live sessions among those asked; one not listed is not live there (any more). */
const ViewReply = Type.Object(
  { sessions: Type.Array(LiveValues, { maxItems: maxIds }) },
  { additionalProperties: false },
);

/** A live session's values as the owner sees them now. */
export type LiveValues = Static<typeof LiveValues>;

const requestCheck = Compile(ViewRequest);
const replyCheck = Compile(ViewReply);

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
  bus: ClusterBus;
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
  /** Answers the other processes' questions about the sessions this one runs. */
  start(): void;
  close(): void;
}

export function createSessionView(deps: SessionViewDeps): SessionView {
  const { bus, logger, live } = deps;
  const timeoutMs = deps.timeoutMs ?? viewDefaults.timeoutMs;
  let unrespond: (() => void) | null = null;

  async function askOnce(owner: string, ids: string[]): Promise<LiveValues[] | null> {
    try {
      const reply = await bus.request(viewSubject(owner), { session_ids: ids }, { timeoutMs });
      if (replyCheck.Check(reply)) return reply.sessions;
      logger.warn({ node: owner }, 'an invalid session view from another hub process');
    } catch (error) {
      logger.debug({ err: error, node: owner }, 'the hub process running a session did not answer');
    }
    return null;
  }

  return {
    async ask(owner, sessionIds) {
      const batches: string[][] = [];
      for (let i = 0; i < sessionIds.length; i += maxIds) batches.push(sessionIds.slice(i, i + maxIds));
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

    start() {
      if (!bus.shared || unrespond) return;
      unrespond = bus.respond(viewSubject(bus.nodeId), (data) => {
        if (!requestCheck.Check(data)) return Promise.reject(new Error('invalid session view request'));
        const sessions: LiveValues[] = [];
        for (const id of new Set(data.session_ids)) {
          const session = live.get(id);
          if (session && !session.ended) sessions.push(liveValuesOf(session));
        }
        return Promise.resolve({ sessions });
      });
    },

    close() {
      unrespond?.();
      unrespond = null;
    },
  };
}
