/**
 * The compiled validators of the agent channel's frames (gateway.ts) and the helpers that read a raw frame:
 * its size and its text, before it is parsed.
 */
import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';
import type { RawData } from 'ws';
import {
  agentRequests,
  agentRequestTypes,
  Frame,
  Heartbeat,
  Hello,
  MetricsFrame,
  ResultPayload,
} from '@svc/protocol';

interface Validator {
  Check(value: unknown): boolean;
  Errors(value: unknown): Iterable<{ instancePath: string; message: string }>;
}

const compile = (schema: TSchema): Validator => Compile(schema);

export const frameCheck = compile(Frame);
export const agentFrames = {
  hello: compile(Hello),
  heartbeat: compile(Heartbeat),
  metrics: compile(MetricsFrame),
  result: compile(ResultPayload),
};
export const payloadChecks = new Map<string, Validator>(
  agentRequestTypes.map((t) => [t, compile(agentRequests[t].payload)]),
);
export const resultChecks = new Map<string, Validator>(
  agentRequestTypes.map((t) => [t, compile(agentRequests[t].result)]),
);

/** The first problem a validator finds, as `/path: message`, for logs and error messages. */
export function firstProblem(validator: Validator, value: unknown): string {
  for (const error of validator.Errors(value)) return `${error.instancePath || '/'}: ${error.message}`;
  return 'does not match the schema';
}

export function sizeOf(data: RawData): number {
  if (Buffer.isBuffer(data)) return data.length;
  if (Array.isArray(data)) return data.reduce((sum, chunk) => sum + chunk.length, 0);
  return data.byteLength;
}

export function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
