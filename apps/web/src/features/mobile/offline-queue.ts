/**
 * The offline action queue (`queueOfflineActions`; decision 0032): a saved-action run taken while the hub is
 * unreachable is kept in IndexedDB with the Idempotency-Key it will be sent with, shown as queued, and replayed
 * once when the hub is back. The hub answers a repeat of the key with the first run's result, so a replay
 * retried after a lost answer still runs the action once. A refusal (4xx) drops the entry with the hub's reason.
 */
import { SvcApiError } from '@svc/sdk';
import { hub, errorText } from '../../api/client';
import { updateConnection } from './connection';
import { put, readAll } from './device-store';

export interface QueuedRun {
  key: string;
  actionId: string;
  actionName: string;
  queuedAt: string;
  state: 'queued' | 'sending' | 'done' | 'dropped';
  /** Why the hub refused it (dropped: the hub's words, shown as data). */
  note: string | null;
  /** The run's summary (done), shown in the reader's language. */
  ran?: { ok: number; total: number };
}

type Listener = () => void;
const listeners = new Set<Listener>();

function changed(): void {
  for (const listener of listeners) listener();
}

export function onQueueChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export async function queuedRuns(): Promise<QueuedRun[]> {
  const all = await readAll<QueuedRun>('queue');
  return all.sort((a, b) => a.queuedAt.localeCompare(b.queuedAt));
}

export async function queueRun(actionId: string, actionName: string): Promise<QueuedRun> {
  const entry: QueuedRun = {
    key: `q-${crypto.randomUUID()}`,
    actionId,
    actionName,
    queuedAt: new Date().toISOString(),
    state: 'queued',
    note: null,
  };
  await put('queue', entry);
  changed();
  return entry;
}

/** Whether an error means "the hub was not reached" (queue it), not "the hub refused" (show it). */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof SvcApiError)
    return error.status === 502 || error.status === 503 || error.status === 504;
  return true;
}

let replaying: Promise<void> | null = null;

/** Sends every queued run once, oldest first; joins a replay already going. */
export function replayQueue(): Promise<void> {
  replaying ??= (async () => {
    try {
      for (const entry of await queuedRuns()) {
        if (entry.state !== 'queued' && entry.state !== 'sending') continue;
        await put('queue', { ...entry, state: 'sending' });
        changed();
        try {
          const { data } = await hub.call('actions.run', {
            params: { id: entry.actionId },
            idempotencyKey: entry.key,
          });
          updateConnection({ reachable: true });
          const { ok, total } = data.summary;
          await put('queue', { ...entry, state: 'done', note: null, ran: { ok, total } });
        } catch (error) {
          if (isUnreachable(error)) {
            await put('queue', { ...entry, state: 'queued' });
            changed();
            return;
          }
          // A refusal is an answer: the hub is back.
          updateConnection({ reachable: true });
          await put('queue', { ...entry, state: 'dropped', note: errorText(error) });
        }
        changed();
      }
    } finally {
      replaying = null;
    }
  })();
  return replaying;
}
