/**
 * Desktop consoles (decision 0058): one WebSocket relayed to a `tcp` stream to the machine's VNC server, and
 * recorded. A console on a session another process owns is relayed to that owner on the stream relay, as a
 * terminal's is; the owner runs the desktop stream, records it, and keeps the session's one console.
 */
import type { WebSocket } from 'ws';
import type { Principal } from '../../access/principal.js';
import { whyMayNotUseSession } from '../../access/session-access.js';
import {
  AgentOfflineError,
  type AgentStreamHandle,
  type AgentStreams,
  type OpenStreamOptions,
  type StreamEnd,
} from '../../agents/agent-gateway.js';
import { agentFailure } from '../../agents/agent-call.js';
import { createStreamRelay } from '../../agents/cluster-streams.js';
import type { OwnedStates } from '../../platform/cluster/owned-state.js';
import type { Logger } from '../../platform/logger.js';
import { watchPrincipal, type CredentialLifetime } from '../../http/credential-lifetime.js';
import { withdrawnReason, type UpgradeRecheck } from '../../http/upgrade.js';
import { desktopCloseCodes, startDesktopRelay, type DesktopRelay } from './desktop-relay.js';
import type { DesktopRecordings } from './desktop-recordings.js';
import type { DesktopSessionRow } from './desktop.repository.js';
import { desktopKind, ownerOfRow, type ConsoleTarget, type LiveSession } from './desktop-session-state.js';

export interface DesktopConsoles {
  /** A console on a session of this process: it replaces the session's console (one at a time). */
  attachHere(principal: Principal, s: LiveSession, socket: WebSocket, recheck: UpgradeRecheck): Promise<void>;
  /** A console on a session another process owns, relayed to it. */
  attachElsewhere(
    principal: Principal,
    row: DesktopSessionRow,
    socket: WebSocket,
    recheck: UpgradeRecheck,
  ): Promise<void>;
  /** The policy went off: every console attached on this process is closed. */
  detachAll(reason: string): void;
  start(): void;
  /** Closes the relay and the consoles relayed from here (this process stops). */
  close(reason: string): void;
}

/**
 * Why a caller whose key changed may no longer hold the console (decision 0049): the route's checks, then
 * the attach's own; null when it may.
 */
function whyNotNow(next: Principal, target: ConsoleTarget, recheck: UpgradeRecheck): string | null {
  const refused = recheck(next);
  if (refused) return refused.message;
  return whyMayNotUseSession(next, { asset_id: target.assetId, ...target.owner });
}

interface DesktopConsoleDeps {
  /** This process's sessions (desktop-sessions.ts keeps them). */
  sessions: Map<string, LiveSession>;
  /** Restarts a session's idle timer once it has no console. */
  armIdle: (s: LiveSession) => void;
  recordings: Pick<DesktopRecordings, 'start'>;
  streams: AgentStreams;
  credentials: Pick<CredentialLifetime, 'onCredentialEnded' | 'onSessionEnded'>;
  cluster: OwnedStates;
  logger: Logger;
}

export function createDesktopConsoles(deps: DesktopConsoleDeps): DesktopConsoles {
  const { sessions, logger } = deps;
  /** Consoles attached here to sessions other processes own (relayed to their owner). */
  const relayedHere = new Set<DesktopRelay>();
  /** Consoles of sessions here attached on another process: that process applies the policy to them. */
  const attachedElsewhere = new WeakSet<Pick<DesktopRelay, 'close'>>();

  /** Records and relays one console to the session's desktop; `onEnded` once it ends. Null when it failed. */
  const runConsole = async (
    principal: Principal,
    target: ConsoleTarget,
    socket: WebSocket,
    onEnded: (relay: DesktopRelay | null) => void,
    recheck: UpgradeRecheck,
    /** The session's owner when another process: the console is relayed to it, and it records. */
    owner: string | null = null,
  ): Promise<DesktopRelay | null> => {
    const recording =
      owner === null
        ? await deps.recordings.start(target).catch((error: unknown) => {
            logger.error({ err: error }, 'desktop: cannot start a recording; the session goes on unrecorded');
            return null;
          })
        : null;
    let current: DesktopRelay | null = null;
    const unwatch = watchPrincipal(
      deps.credentials,
      principal,
      () => {
        current?.close('the credential ended');
      },
      (next) => {
        const why = whyNotNow(next, target, recheck);
        if (why !== null) current?.close(withdrawnReason(why), desktopCloseCodes.accessWithdrawn);
      },
    );
    const onEnd = (result: StreamEnd) => {
      unwatch();
      onEnded(current);
      logger.info(
        { session_id: target.id, reason: result.reason, by: result.by },
        'desktop console detached',
      );
      recording?.finish().catch((error: unknown) => {
        logger.error({ err: error }, 'desktop: finishing a recording failed');
      });
    };
    try {
      current = await startDesktopRelay({
        socket,
        recorder: recording?.recorder ?? null,
        openStream: (callbacks) =>
          owner === null
            ? deps.streams.openStream(target.assetId, { kind: 'tcp', params: {}, ...callbacks })
            : relayed.open(owner, target.id, { kind: 'tcp', params: {}, ...callbacks }),
        onEnd,
      });
      return current;
    } catch (error) {
      const row = { id: target.assetId, name: target.assetId, last_seen_at: null };
      const failure = agentFailure(error, row, 'exec.run');
      const message = failure instanceof Error ? failure.message : 'the desktop could not be opened';
      socket.close(4000, message.slice(0, 120));
      onEnd({ reason: message, by: 'agent', exit: null });
      return null;
    }
  };

  const relayTo = async (
    principal: Principal,
    s: LiveSession,
    socket: WebSocket,
    recheck: UpgradeRecheck,
  ) => {
    s.relay?.close('replaced by a new console');
    clearTimeout(s.idleTimer);
    const relay = await runConsole(
      principal,
      s,
      socket,
      (ended) => {
        if (s.relay === ended) s.relay = null;
        if (sessions.has(s.id) && s.relay === null) deps.armIdle(s);
      },
      recheck,
    );
    if (relay && !relay.stream.closed) s.relay = relay;
  };

  /**
   * A console here on a session another process owns (decisions 0043, 0058): relayed to the owner on the
   * stream relay, as a terminal is. The caller's checks and the watch on its key stay here; the owner runs
   * the desktop stream, records it and keeps the session's one console and idle timer.
   */
  const relayAttach = async (
    principal: Principal,
    row: DesktopSessionRow,
    socket: WebSocket,
    recheck: UpgradeRecheck,
  ) => {
    const target: ConsoleTarget = {
      id: row.id,
      assetId: row.asset_id,
      owner: ownerOfRow(row),
      recordingId: null,
    };
    const relay = await runConsole(
      principal,
      target,
      socket,
      (ended) => {
        if (ended) relayedHere.delete(ended);
      },
      recheck,
      row.node_id,
    );
    if (relay && !relay.stream.closed) relayedHere.add(relay);
  };

  const relayed = createStreamRelay({
    owned: deps.cluster,
    kind: desktopKind.def.name,
    local: createOwnerStreams(deps, attachedElsewhere),
    logger,
  });

  return {
    attachHere: relayTo,
    attachElsewhere: relayAttach,
    detachAll(reason) {
      for (const s of sessions.values())
        if (s.relay && !attachedElsewhere.has(s.relay))
          s.relay.close(reason, desktopCloseCodes.policyDisabled);
      for (const c of [...relayedHere]) c.close(reason, desktopCloseCodes.policyDisabled);
    },
    start() {
      relayed.start();
    },
    close(reason) {
      relayed.close(reason);
      for (const c of [...relayedHere]) c.close(reason);
    },
  };
}

/** The owner's end of a console relayed from another process: the session's desktop stream, recorded here. */
function createOwnerStreams(
  deps: DesktopConsoleDeps,
  attachedElsewhere: WeakSet<Pick<DesktopRelay, 'close'>>,
): AgentStreams {
  const { sessions, logger } = deps;
  return {
    async openStream<K extends 'pty' | 'tcp'>(
      sessionId: string,
      options: OpenStreamOptions<K>,
    ): Promise<AgentStreamHandle<K>> {
      const s = sessions.get(sessionId);
      if (!s || options.kind !== 'tcp') throw new AgentOfflineError(sessionId);
      s.relay?.close('replaced by a new console');
      clearTimeout(s.idleTimer);
      let stream: AgentStreamHandle<'tcp'> | null = null;
      const slot = {
        close: (reason: string) => {
          stream?.close(reason);
        },
      };
      s.relay = slot;
      attachedElsewhere.add(slot);
      const recording = await deps.recordings.start(s).catch((error: unknown) => {
        logger.error({ err: error }, 'desktop: cannot start a recording; the session goes on unrecorded');
        return null;
      });
      const done = () => {
        recording?.finish().catch((error: unknown) => {
          logger.error({ err: error }, 'desktop: finishing a recording failed');
        });
        if (s.relay !== slot) return;
        s.relay = null;
        if (sessions.has(s.id)) deps.armIdle(s);
      };
      try {
        stream = await deps.streams.openStream(s.assetId, {
          kind: 'tcp',
          params: {},
          ...(options.windowBytes !== undefined ? { windowBytes: options.windowBytes } : {}),
          onData: (chunk) => {
            recording?.recorder.fromServer(chunk);
            options.onData(chunk);
          },
          onClose: (streamEnd) => {
            done();
            options.onClose(streamEnd);
          },
        });
      } catch (error) {
        done();
        throw error;
      }
      const opened = stream;
      // Replaced (or ended) while the desktop stream opened.
      if (s.relay !== slot || !sessions.has(s.id)) opened.close('replaced by a new console');
      const handle: AgentStreamHandle<'tcp'> = {
        id: opened.id,
        assetId: opened.assetId,
        kind: 'tcp',
        info: opened.info,
        get closed() {
          return opened.closed;
        },
        get queuedBytes() {
          return opened.queuedBytes;
        },
        write: (chunk) => {
          recording?.recorder.fromClient(chunk);
          return opened.write(chunk);
        },
        resize: () => undefined,
        ack: (bytes) => {
          opened.ack(bytes);
        },
        close: (reason) => {
          opened.close(reason);
        },
      };
      return handle as unknown as AgentStreamHandle<K>;
    },
  };
}
