/**
 * The gateway's timers (gateway.ts): one interval for all connections (hello deadlines, byte-budget sweeps,
 * batched presence writes) and one that pings a share of the connections at a time, so the keepalive is
 * spread over its interval.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from '../platform/logger.js';
import type { ByteBudgets } from './byte-budget.js';
import type { Presence } from './presence.js';
import type { ConnectionLifecycle, ConnectionTable } from './gateway-connection.js';

/** Pings a connection may leave unanswered before it is terminated. */
const missedPongsAllowed = 2;

interface KeepaliveDeps {
  logger: Logger;
  presence: Presence;
  budgets: ByteBudgets;
  table: ConnectionTable;
  lifecycle: Pick<ConnectionLifecycle, 'retire' | 'violation'>;
  helloTimeoutMs: number;
  keepaliveIntervalMs: number;
  tickMs: number;
  presenceFlushMs: number;
}

/** Starts the gateway's timers; the function returned stops them. */
export function startKeepalive(deps: KeepaliveDeps): () => void {
  const { logger, presence, budgets, table, helloTimeoutMs, keepaliveIntervalMs, tickMs, presenceFlushMs } =
    deps;
  const { retire, violation } = deps.lifecycle;
  const { all } = table;
  /**
   * The keepalive round: where it is in `all` (a Set's iterator skips connections removed since and reaches
   * ones added), so each connection is pinged once per keepalive interval.
   */
  let pingRound = all.values();
  let pingCredit = 0;
  let lastFlush = performance.now();
  let lastBudgetSweep = performance.now();

  function tick(): void {
    const now = performance.now();
    for (const conn of table.awaitingHello) {
      if (now - conn.openedAt > helloTimeoutMs)
        violation(conn, `no hello within ${Math.round(helloTimeoutMs / 1000)} s`);
    }
    if (now - lastBudgetSweep >= 60_000) {
      lastBudgetSweep = now;
      budgets.sweep(now, (assetId) => table.connections.has(assetId));
    }
    if (now - lastFlush >= presenceFlushMs) {
      lastFlush = now;
      presence.flush().catch((error: unknown) => {
        logger.error({ err: error }, 'writing agent presence failed');
      });
    }
  }

  /**
   * Pings the next share of connections, so a round takes about one keepalive interval. Spread over the round,
   * not all in one turn: a ping is a TLS write, and sixteen thousand of them at once held the event loop for
   * seconds (decision 0057).
   */
  function pingSome(): void {
    // Fractions carry over: with few connections a ping goes out every few passes, not one each pass.
    pingCredit = Math.min(all.size, pingCredit + (all.size * pingEveryMs) / keepaliveIntervalMs);
    const quota = Math.floor(pingCredit);
    pingCredit -= quota;
    for (let sent = 0; sent < quota; sent++) {
      let next = pingRound.next();
      if (next.done) {
        pingRound = all.values();
        next = pingRound.next();
        if (next.done) return;
      }
      const conn = next.value;
      if (conn.missedPongs >= missedPongsAllowed) {
        logger.info({ asset_id: conn.assetId }, 'agent stopped answering pings; connection terminated');
        conn.closing = true;
        retire(conn);
        conn.ws.terminate();
        continue;
      }
      conn.missedPongs += 1;
      try {
        conn.ws.ping();
      } catch {
        // Not open any more; 'close' will follow.
      }
    }
  }

  const timer = setInterval(tick, tickMs);
  timer.unref();
  const pingEveryMs = Math.min(tickMs, 100);
  const pingTimer = setInterval(pingSome, pingEveryMs);
  pingTimer.unref();
  return () => {
    clearInterval(timer);
    clearInterval(pingTimer);
  };
}
