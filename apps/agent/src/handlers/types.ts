import type { AgentRequestPayload, AgentRequestResult, AgentRequestType } from '@svc/protocol';

/** Answers one request type; throws AgentError for an answer of `{ok: false}`. */
type Handler<T extends AgentRequestType> = (
  payload: AgentRequestPayload<T>,
) => Promise<AgentRequestResult<T>>;

export type HandlerMap = { [T in AgentRequestType]: Handler<T> };
