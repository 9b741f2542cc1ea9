/**
 * The audit records of read-only tool calls, written in batches: one transaction per batch instead of one
 * per call (a commit per read made a read tool twenty times slower than its REST route, docs/BENCHMARKS.md).
 * A read changes nothing, so its record may follow it by a moment; a tool that acts is recorded before it
 * runs, alone, and fails if that write fails (mcp-tool-call.ts, ARCHITECTURE.md security rule 8).
 */
import type { ActionContext } from '../../access/principal.js';
import type { AuditEntry, AuditService } from '../audit/audit.service.js';

interface Pending {
  ctx: ActionContext;
  entry: AuditEntry;
}

export interface ReadAudit {
  /** Queues a read's record; written within `intervalMs`, or at once when the batch is full. */
  record(ctx: ActionContext, entry: AuditEntry): void;
  /** Writes what is queued (at close, and in tests). */
  flush(): Promise<void>;
}

export function createReadAudit(deps: {
  audit: Pick<AuditService, 'recordOfMany'>;
  onError(error: unknown): void;
  intervalMs?: number;
  maxBatch?: number;
}): ReadAudit {
  const intervalMs = deps.intervalMs ?? 200;
  const maxBatch = deps.maxBatch ?? 500;
  let queued: Pending[] = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();

  function write(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = queued;
    queued = [];
    if (batch.length === 0) return writing;
    // One batch at a time, in order.
    writing = writing
      .then(() => deps.audit.recordOfMany(batch))
      .catch((error: unknown) => {
        deps.onError(error);
      });
    return writing;
  }

  return {
    record(ctx, entry) {
      queued.push({ ctx, entry });
      if (queued.length >= maxBatch) void write();
      else
        timer ??= setTimeout(() => {
          void write();
        }, intervalMs);
    },
    flush: write,
  };
}
