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

/**
 * Validators compiled on first use, per type: compiling the whole catalog at start held memory for request
 * types an agent may never see (decision 0067).
 */
export function compiledOnDemand<V>(has: (type: string) => boolean, compile: (type: string) => V) {
  const compiled = new Map<string, V>();
  return {
    get(type: string): V | undefined {
      let validator = compiled.get(type);
      if (validator === undefined && has(type)) {
        validator = compile(type);
        compiled.set(type, validator);
      }
      return validator;
    },
  };
}

const isRequestType = (type: string): type is AgentRequestType => Object.hasOwn(agentRequests, type);
export const requestValidators = compiledOnDemand(isRequestType, (type) => {
  const entry = agentRequests[type as AgentRequestType];
  return { payload: Compile(entry.payload), result: Compile(entry.result) };
});

const outgoingValidators = compiledOnDemand(
  (type) => Object.hasOwn(agentToHub, type),
  (type) => Compile(agentToHub[type as AgentToHubType]),
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
