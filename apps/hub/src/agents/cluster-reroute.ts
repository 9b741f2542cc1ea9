/**
 * One retry for a call routed to a stale holder (decisions 0039 and 0043). The cluster view names the
 * process holding an agent; for a moment after the agent moves, it still names the old one. That process
 * answers `not_held` (or no process answers for it any more): nothing reached the agent, so the call may go
 * once more, to the holder the view names within a short wait, or to this process if the agent came here.
 * Agent requests and stream opens (terminals, desktops) take the same path through this one function; a call
 * that may have reached the agent never comes back as not delivered, so it is never sent twice.
 */
import { AgentOfflineError } from './agent-gateway.js';

const rerouteDefaults = {
  /** How long a call whose holder no longer had the agent waits for the view to name the new one. */
  waitMs: 1_000,
  checkMs: 20,
} as const;

/**
 * The call reached no agent: the holder did not have it, or no process answers for the holder. To anyone who
 * does not retry it is what it also is: the agent is offline there.
 */
export class AgentNotDeliveredError extends AgentOfflineError {
  constructor(assetId: string) {
    super(assetId);
    this.name = 'AgentNotDeliveredError';
  }
}

export interface RerouteDeps {
  /** The agent is connected to this process. */
  isLocal(assetId: string): boolean;
  /** The other process the cluster view names as the agent's holder, or null. */
  holderOf(assetId: string): string | null;
  isGone(node: string): boolean;
  /** This process is closing: no more waiting. */
  isClosed(): boolean;
  waitMs?: number;
}

/**
 * Runs `remote` on `holder`; when it was not delivered, once more where the agent is now: `remote` on its new
 * holder, or `here` when it came to this process. Offline when no other holder appears in time.
 */
export type Rerouted = <T>(
  holder: string,
  assetId: string,
  remote: (holder: string) => Promise<T>,
  here: () => Promise<T>,
) => Promise<T>;

export function createRerouter(deps: RerouteDeps): Rerouted {
  const waitMs = deps.waitMs ?? rerouteDefaults.waitMs;

  /**
   * Where the agent is now, after `stale` did not have it: here (null), another holder the view names, or
   * undefined when no other holder appears in time. The view learns a move within a flush of the new holder.
   */
  async function newHolder(assetId: string, stale: string): Promise<string | null | undefined> {
    const deadline = Date.now() + waitMs;
    for (let check = 0; check * rerouteDefaults.checkMs <= waitMs; check++) {
      if (deps.isClosed()) return undefined;
      if (deps.isLocal(assetId)) return null;
      const holder = deps.holderOf(assetId);
      if (holder !== null && holder !== stale && !deps.isGone(holder)) return holder;
      if (Date.now() >= deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, rerouteDefaults.checkMs));
    }
    return undefined;
  }

  return async (holder, assetId, remote, here) => {
    try {
      return await remote(holder);
    } catch (error) {
      if (!(error instanceof AgentNotDeliveredError)) throw error;
    }
    const next = await newHolder(assetId, holder);
    if (next === undefined) throw new AgentOfflineError(assetId);
    if (next === null) return here();
    try {
      return await remote(next);
    } catch (error) {
      // Not delivered twice: as offline as any other call that found no agent.
      throw error instanceof AgentNotDeliveredError ? new AgentOfflineError(assetId) : error;
    }
  };
}
