/**
 * Areas loaded when first used (decision 0067). The idle agent holds only its channel, heartbeats and metrics;
 * the code of an area (files, exec, containers, terminals…) is imported, as its own chunk of the bundle, by
 * the first request that needs it, and kept from then on. A failed import is not kept: the next request tries
 * again.
 */
import type { AgentRequestType } from '@svc/protocol';
import type { StreamOpeners } from '../channel/streams.js';
import { AgentError } from './agent-error.js';
import type { HandlerMap } from './types.js';

/**
 * What a failed import becomes: the agent's files were replaced (an update installed over it) or removed
 * while it ran, so its own code for this area is gone until it restarts.
 */
function missingArea(area: string, error: unknown): AgentError {
  return new AgentError(
    'failed',
    `the agent cannot load its ${area} code (${(error as Error).message.slice(0, 300)}); if it was updated, restart it (systemctl restart svc-agent)`,
  );
}

/** `load` once, on first call; a failure is thrown to that caller and the next call loads again. */
export function once<T>(area: string, load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = null;
      throw error instanceof AgentError ? error : missingArea(area, error);
    });
    return loading;
  };
}

/** Handlers of `types` that import their area (`load`) on the first request of any of them. */
export function lazyHandlers<T extends AgentRequestType>(
  area: string,
  types: readonly T[],
  load: () => Promise<Pick<HandlerMap, T>>,
): Pick<HandlerMap, T> {
  const get = once(area, load);
  const entries = types.map((type) => {
    const handler = async (payload: unknown): Promise<unknown> => {
      const loaded = (await get())[type] as (p: unknown) => Promise<unknown>;
      return loaded(payload);
    };
    return [type, handler] as const;
  });
  return Object.fromEntries(entries) as unknown as Pick<HandlerMap, T>;
}

/** Stream openers of `kinds` that import their area on the first stream of any of them. */
export function lazyOpeners(
  area: string,
  kinds: readonly (keyof StreamOpeners)[],
  load: () => Promise<StreamOpeners>,
): StreamOpeners {
  const get = once(area, load);
  const openers: Record<string, unknown> = {};
  for (const kind of kinds) {
    openers[kind] = {
      async open(params: unknown, sink: unknown): Promise<unknown> {
        const opener = (await get())[kind] as
          { open(params: unknown, sink: unknown): Promise<unknown> } | undefined;
        if (!opener) throw new AgentError('unsupported', `${kind} streams are not supported by this agent`);
        return opener.open(params, sink);
      },
    };
  }
  return openers;
}
