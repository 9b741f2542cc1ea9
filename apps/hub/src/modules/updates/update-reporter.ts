/**
 * Asks agents for their available updates every `updates.check_hours` (decision 0081). Each process asks the
 * agents connected to it, and only those: an agent holds one connection, so every agent is asked by one process
 * without a cluster lease (a lease holder would see only its own agents). Agents are asked a few at a time,
 * those whose report is oldest first; one without the capability `updates` is recorded as unsupported,
 * not asked.
 */
import { checkedAtOf } from './updates.repository.js';
import type { AgentGateway } from '../../agents/agent-gateway.js';
import { agentFailure } from '../../agents/agent-call.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import { eachInSlices } from '../../platform/slices.js';
import type { Kysely } from 'kysely';
import { listTimeoutMs, type UpdatesService } from './updates.service.js';

export interface UpdateReporter {
  start(): void;
  /** One pass over this process's agents: resolves when every report asked for has come (or failed). */
  runDue(): Promise<void>;
  close(): Promise<void>;
}

export interface UpdateReporterDeps {
  db: Kysely<Database>;
  clock: Clock;
  gateway: Pick<AgentGateway, 'sessions' | 'request'>;
  updates: Pick<UpdatesService, 'recordReport' | 'recordError'>;
  /** `updates.check_hours`, read at every pass. */
  checkHours: () => number;
  logger: Logger;
  pollMs?: number;
}

/** Agents asked at once by one process. */
const askedAtOnce = 16;
/** Agents asked per pass (the rest at the next). */
const perPass = 500;
const unsupportedText = 'the agent reports no package manager support (capability updates)';

export function createUpdateReporter(deps: UpdateReporterDeps): UpdateReporter {
  const { db, clock, gateway, updates, logger } = deps;
  const pollMs = deps.pollMs ?? 60_000;
  let timer: NodeJS.Timeout | null = null;
  let passing: Promise<void> | null = null;

  async function pass(): Promise<void> {
    const now = clock.now().getTime();
    const dueBefore = now - deps.checkHours() * 3_600_000;
    const sessions = gateway.sessions();
    const checked = await checkedAtOf(
      db,
      sessions.map((s) => s.assetId),
    );
    const due = sessions
      .filter((s) => {
        const at = checked.get(s.assetId);
        return at === undefined || Date.parse(at) <= dueBefore;
      })
      .sort((a, b) => (checked.get(a.assetId) ?? '').localeCompare(checked.get(b.assetId) ?? ''))
      .slice(0, perPass);
    await eachInSlices(due.length, askedAtOnce, askedAtOnce, async (i) => {
      const session = due[i];
      if (!session) return;
      const id = session.assetId;
      try {
        if (!session.hello.capabilities.includes('updates')) {
          await updates.recordError(id, unsupportedText);
          return;
        }
        const result = await gateway.request(
          id,
          'updates.list',
          { refresh: true },
          { timeoutMs: listTimeoutMs },
        );
        await updates.recordReport(id, result);
      } catch (error) {
        const mapped = agentFailure(error, { id, name: id, last_seen_at: null }, 'updates.list');
        const message = mapped instanceof Error ? mapped.message : String(mapped);
        await updates.recordError(id, message).catch((e: unknown) => {
          logger.error({ err: e, asset: id }, 'updates: recording a failed report failed');
        });
      }
    });
  }

  function runDue(): Promise<void> {
    if (passing) return passing;
    passing = pass().finally(() => {
      passing = null;
    });
    return passing;
  }

  return {
    start() {
      timer = setInterval(() => {
        runDue().catch((error: unknown) => {
          logger.error({ err: error }, 'updates: asking agents for their available updates failed');
        });
      }, pollMs);
      timer.unref();
    },
    runDue,
    async close() {
      if (timer) clearInterval(timer);
      timer = null;
      await passing?.catch(() => undefined);
    },
  };
}
