/**
 * Turns one hub request into one result payload: the type must be in the catalog, the payload must match
 * its schema, the handler's answer must match the result schema. Handler failures become `{ok: false}` with
 * the handler's code, or `failed` with a message and no stack.
 */
import type { AgentRequestType, ResultPayload } from '@svc/protocol';
import { AgentError } from '../handlers/agent-error.js';
import type { HandlerMap } from '../handlers/types.js';
import type { Logger } from '../logger.js';
import { describeProblem, requestValidators } from './frames.js';

export type Dispatch = (type: string, payload: unknown) => Promise<ResultPayload>;

export function createDispatcher(handlers: HandlerMap, logger: Logger): Dispatch {
  return async (type, payload) => {
    const validators = requestValidators.get(type);
    if (!validators)
      return {
        ok: false,
        error: { code: 'unsupported', message: `unknown request type ${type.slice(0, 64)}` },
      };
    if (!validators.payload.Check(payload)) {
      return {
        ok: false,
        error: {
          code: 'invalid_argument',
          message: `invalid ${type} payload: ${describeProblem(validators.payload, payload)}`,
        },
      };
    }
    const handler = handlers[type as AgentRequestType] as (p: unknown) => Promise<unknown>;
    let data: unknown;
    try {
      data = await handler(payload);
    } catch (error) {
      if (error instanceof AgentError)
        return { ok: false, error: { code: error.code, message: error.message.slice(0, 2000) } };
      logger.error('request failed', { type, error: (error as Error).message });
      return {
        ok: false,
        error: { code: 'failed', message: `${type} failed: ${(error as Error).message}`.slice(0, 2000) },
      };
    }
    if (!validators.result.Check(data)) {
      logger.error('handler produced an invalid result', {
        type,
        problem: describeProblem(validators.result, data),
      });
      return {
        ok: false,
        error: { code: 'failed', message: `the agent produced an invalid ${type} result` },
      };
    }
    return { ok: true, data };
  };
}
