import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { SecretBox } from '../../platform/secret-box.js';
import { allKeys } from '../../platform/cluster/invalidation.js';
import { allWebhooks, findWebhook, type WebhookRow } from './webhooks.repository.js';

/** What the dispatcher holds of a webhook: read once, kept current by this service's own writes. */
export interface Target {
  id: string;
  url: string;
  secret: string;
  events: ReadonlySet<string> | null;
  enabled: boolean;
}

/** The webhooks as this process matches events against them (decision 0040: other processes invalidate). */
export interface WebhookTargets {
  get(id: string): Target | undefined;
  values(): IterableIterator<Target>;
  /** The row as it is now (this process's own write). */
  set(row: WebhookRow): void;
  targetOf(row: WebhookRow): Target;
  /** Every webhook read once; a failure may be retried after reset(). */
  ensureLoaded(): Promise<void>;
  reset(): void;
  /** Another process changed or removed the webhook (or all of them): read again. */
  reload(id: string): Promise<void>;
  /** The reloads asked for so far, not finished yet: an event waits for them before it is matched. */
  pendingReloads(): Promise<void>[];
  /** A removed webhook: nothing more is sent to it from here. */
  forget(id: string): void;
}

export const secretContext = (id: string) => `webhook:${id}`;

export function parseEvents(text: string): string[] {
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed.filter((e): e is string => typeof e === 'string') : [];
}

export function createWebhookTargets(deps: {
  db: Kysely<Database>;
  box: SecretBox;
  /** Called for each webhook forgotten here, so its deliveries stop too. */
  onForget(webhookId: string): void;
}): WebhookTargets {
  const { db, box } = deps;
  const targets = new Map<string, Target>();
  let loaded: Promise<void> | null = null;
  /** Reloads another process asked for, not finished yet: an event waits for them before it is matched. */
  const reloading = new Set<Promise<void>>();

  function targetOf(row: WebhookRow): Target {
    const events = parseEvents(row.events);
    return {
      id: row.id,
      url: row.url,
      secret: box.open(row.secret_sealed, secretContext(row.id)),
      events: events.length === 0 ? null : new Set(events),
      enabled: row.enabled === 1,
    };
  }

  function forget(webhookId: string): void {
    targets.delete(webhookId);
    deps.onForget(webhookId);
  }

  function ensureLoaded(): Promise<void> {
    loaded ??= allWebhooks(db).then((rows) => {
      for (const row of rows) targets.set(row.id, targetOf(row));
    });
    return loaded;
  }

  async function reread(id: string): Promise<void> {
    if (loaded === null) return;
    await loaded;
    if (id === allKeys) {
      const rows = await allWebhooks(db);
      const ids = new Set(rows.map((r) => r.id));
      for (const known of [...targets.keys()]) if (!ids.has(known)) forget(known);
      for (const r of rows) targets.set(r.id, targetOf(r));
      return;
    }
    const row = await findWebhook(db, id);
    if (row) {
      targets.set(id, targetOf(row));
      return;
    }
    forget(id);
  }

  return {
    get: (id) => targets.get(id),
    values: () => targets.values(),
    set: (row) => {
      targets.set(row.id, targetOf(row));
    },
    targetOf,
    ensureLoaded,
    reset: () => {
      loaded = null;
    },
    reload(id) {
      const work = reread(id);
      const settled = work.catch(() => undefined);
      reloading.add(settled);
      void settled.finally(() => reloading.delete(settled));
      return work;
    },
    pendingReloads: () => [...reloading],
    forget,
  };
}
