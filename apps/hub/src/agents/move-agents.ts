/**
 * A stopping process hands its agents to the others (decision 0055): each gets a `hub.moving` notice, in
 * batches a little apart so that the agents land on the other processes at a rate they can take (each move is a
 * TLS handshake and a hello there, on processes already busy with their own agents: decision 0093), and each
 * waits a random part of `within_ms` before it reconnects (through the load balancer, which has taken
 * this process out during the drain, or to its next hub address). This waits until they have gone, or for the
 * longest delay a notice allows and a second more; the gateway's close() ends whatever is left (agents too old
 * to know the notice reconnect after that close, as they always did).
 */
import { hubMovingMaxDelayMs } from '@svc/protocol';

/** Agents told to move per second when nothing else is said (SVC_AGENT_MOVE_RATE, decision 0093). */
export const defaultMoveRate = 1_000;

export interface MoveOptions {
  /** Agents told at once (default: a tenth of the rate, so a batch every 100 ms). */
  batchSize?: number;
  /** Between two batches (default 100 ms). */
  batchIntervalMs?: number;
  /** Agents told per second, when batchSize is not given (default defaultMoveRate). */
  perSecond?: number;
  /** The longest random delay an agent may take before it reconnects (default and at most 2 s). */
  withinMs?: number;
}

export interface MoveOutcome {
  /** Agents sent the notice. */
  told: number;
  /** Of those, still connected here when the wait ended. */
  left: number;
  ms: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How long after its notice an agent may still be here: its random delay, and its close on its way. */
const leaveMarginMs = 1_000;

export async function moveAgents<T>(
  targets: readonly T[],
  io: { notify(target: T, withinMs: number): boolean; stillHere(target: T): boolean },
  options: MoveOptions = {},
): Promise<MoveOutcome> {
  const started = performance.now();
  const batchSize = Math.max(1, options.batchSize ?? Math.ceil((options.perSecond ?? defaultMoveRate) / 10));
  const batchIntervalMs = Math.max(0, options.batchIntervalMs ?? 100);
  const withinMs = Math.min(Math.max(0, options.withinMs ?? hubMovingMaxDelayMs), hubMovingMaxDelayMs);
  const told: T[] = [];
  for (let start = 0; start < targets.length; start += batchSize) {
    if (start > 0) await sleep(batchIntervalMs);
    for (const target of targets.slice(start, start + batchSize)) {
      if (io.stillHere(target) && io.notify(target, withinMs)) told.push(target);
    }
  }
  const deadline = performance.now() + withinMs + leaveMarginMs;
  const remaining = () => told.filter((t) => io.stillHere(t)).length;
  // Bounded: at most (withinMs + margin) / 50 rounds.
  while (remaining() > 0 && performance.now() < deadline) await sleep(50);
  return { told: told.length, left: remaining(), ms: Math.round(performance.now() - started) };
}
