/**
 * Retention: each run asks every registered task for its window (read live from the settings each time) and
 * deletes what is older in bounded batches, one short statement each, yielding to the event loop between
 * them, so no run holds a long write lock or stalls requests. Modules contribute tasks through their
 * `retention` field (modules/module.ts); the metrics store keeps its own asset-by-asset pruning.
 */
import type { Clock } from './clock.js';

export interface RetentionTask {
  /** What it purges, for logs and counters (`audit_events`, `webhook_deliveries`…). */
  name: string;
  /** Days kept; read at each run, so a settings change applies at the next one. */
  days(): number;
  /** Deletes at most `limit` records stamped before `cutoff` (ISO 8601); returns how many it deleted. */
  purgeBatch(cutoff: string, limit: number): Promise<number>;
}

interface RetentionRunResult {
  /** Records deleted per task name. */
  deleted: Record<string, number>;
  batches: number;
}

export interface RetentionRunner {
  /** One pass over every task (also what the timer runs); a run already going is joined, not doubled. */
  runOnce(): Promise<RetentionRunResult>;
  start(): void;
  /** Stops the timer and waits for a run in progress to finish its current batch. */
  close(): Promise<void>;
}

export interface RetentionRunnerDeps {
  clock: Clock;
  tasks: readonly RetentionTask[];
  /** Records per delete statement (default 1000). */
  batchSize?: number;
  /** Batches per task and run at most (default 1000): a huge backlog is worked off over several runs. */
  maxBatchesPerRun?: number;
  /** How often the timer runs (default hourly). */
  intervalMs?: number;
  onError?(task: string, error: unknown): void;
  onPurged?(task: string, deleted: number): void;
  /** False while another hub process holds this loop's lease (decision 0040): its timer then skips. */
  runsHere?: () => boolean;
}

const dayMs = 24 * 60 * 60 * 1000;

const yieldToEventLoop = () =>
  new Promise<void>((resolve) => {
    setImmediate(resolve);
  });

export function createRetentionRunner(deps: RetentionRunnerDeps): RetentionRunner {
  const batchSize = deps.batchSize ?? 1000;
  const maxBatches = deps.maxBatchesPerRun ?? 1000;
  let running: Promise<RetentionRunResult> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closing = false;

  async function purge(task: RetentionTask, result: RetentionRunResult): Promise<void> {
    const cutoff = new Date(deps.clock.now().getTime() - task.days() * dayMs).toISOString();
    let deleted = 0;
    for (let batch = 0; batch < maxBatches && !closing; batch += 1) {
      const count = await task.purgeBatch(cutoff, batchSize);
      result.batches += 1;
      deleted += count;
      if (count < batchSize) break;
      await yieldToEventLoop();
    }
    result.deleted[task.name] = deleted;
    if (deleted > 0) deps.onPurged?.(task.name, deleted);
  }

  async function run(): Promise<RetentionRunResult> {
    const result: RetentionRunResult = { deleted: {}, batches: 0 };
    for (const task of deps.tasks) {
      try {
        await purge(task, result);
      } catch (error) {
        // One task failing leaves the others to run; the next run tries it again.
        deps.onError?.(task.name, error);
      }
    }
    return result;
  }

  function runOnce(): Promise<RetentionRunResult> {
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  }

  return {
    runOnce,
    start() {
      if (deps.tasks.length === 0) return;
      timer = setInterval(
        () => {
          if (deps.runsHere && !deps.runsHere()) return;
          void runOnce();
        },
        deps.intervalMs ?? 60 * 60 * 1000,
      );
      timer.unref();
    },
    async close() {
      closing = true;
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
