/** Compiled validators for the channel catalog and the frame encoder. */
import { randomUUID } from 'node:crypto';
import { Compile } from 'typebox/compile';
import {
  Frame,
  HubMoving,
  Welcome,
  agentProtocolVersion,
  agentRequests,
  agentToHub,
  type AgentRequestType,
  type AgentToHubType,
} from '@svc/protocol';
import type { Static } from 'typebox';

export const checkFrame = Compile(Frame);
export const checkWelcome = Compile(Welcome);
export const checkHubMoving = Compile(HubMoving);

type Validator = ReturnType<typeof Compile>;

export const requestValidators = new Map<string, { payload: Validator; result: Validator }>(
  (Object.keys(agentRequests) as AgentRequestType[]).map((type) => [
    type,
    { payload: Compile(agentRequests[type].payload), result: Compile(agentRequests[type].result) },
  ]),
);

const outgoingValidators = new Map<string, Validator>(
  (Object.keys(agentToHub) as AgentToHubType[]).map((type) => [type, Compile(agentToHub[type])]),
);

/** First validation problem, for a message. */
export function describeProblem(validator: Validator, value: unknown): string {
  const first = validator.Errors(value)[0];
  if (!first) return 'invalid';
  return `${first.instancePath || '(payload)'} ${first.message}`.slice(0, 500);
}

export function encodeFrame<T extends AgentToHubType>(
  type: T,
  payload: Static<(typeof agentToHub)[T]>,
  id: string = randomUUID(),
): string {
  // What we send obeys the same catalog we demand of the hub.
  const validator = outgoingValidators.get(type);
  if (validator && !validator.Check(payload))
    throw new Error(`outgoing ${type} frame is invalid: ${describeProblem(validator, payload)}`);
  return JSON.stringify({ v: agentProtocolVersion, type, id, payload });
}
