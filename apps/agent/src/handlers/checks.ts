/**
 * check.run (decision 0084): one service-check probe from this agent, on its own network, for a service the hub
 * cannot reach. The probe is the hub's own (`@svc/protocol/node/checks`); what differs is the address: the
 * agent has no egress guard and looks the name up itself. What it refuses is in the target: only http(s) URLs
 * without credentials, `host:port`, or a host (never a leading `-`, so `ping` never reads one as an option).
 * The timeout bounds the lookup and the probe; at most 64 KiB of a body are read.
 */
import { lookup } from 'node:dns/promises';
import type { AgentRequestPayload, AgentRequestResult } from '@svc/protocol';
import { parseCheckTarget, runProbe } from '@svc/protocol/node/checks';
import { AgentError } from './agent-error.js';
import type { HandlerMap } from './types.js';

export interface CheckHandlerOptions {
  /** The agent's platform: `ping` takes Linux-style arguments, which Windows' ping does not. */
  platform: string;
  /** The ping binary (tests). */
  pingBinary?: string;
  /** Host → address (tests); a DNS lookup by default. */
  resolve?: (host: string) => Promise<string>;
}

async function lookupAddress(host: string): Promise<string> {
  return (await lookup(host, { order: 'verbatim' })).address;
}

export async function runCheck(
  payload: AgentRequestPayload<'check.run'>,
  options: CheckHandlerOptions,
): Promise<AgentRequestResult<'check.run'>> {
  const parsed = parseCheckTarget(payload.kind, payload.target);
  if (!parsed.ok) throw new AgentError('invalid_argument', `target ${payload.target}: ${parsed.problem}`);
  if (payload.kind !== 'http' && (payload.expected_status !== null || payload.expected_body !== null)) {
    throw new AgentError('invalid_argument', 'expected_status and expected_body are for http checks only');
  }
  if (payload.kind === 'ping' && options.platform === 'windows') {
    throw new AgentError(
      'unsupported',
      'ping checks from a Windows agent are not supported; use a tcp check',
    );
  }
  const outcome = await runProbe(parsed.target, {
    timeoutMs: payload.timeout_ms,
    resolve: options.resolve ?? lookupAddress,
    origin: 'this agent',
    tlsVerify: payload.tls_verify,
    expect: { status: payload.expected_status, body: payload.expected_body },
    ...(options.pingBinary !== undefined ? { pingBinary: options.pingBinary } : {}),
  });
  return {
    ok: outcome.ok,
    latency_ms: outcome.latencyMs,
    status_code: outcome.statusCode,
    error: outcome.error,
    cert_expires_at: outcome.certExpiresAt,
  };
}

export function createCheckHandlers(options: CheckHandlerOptions): Pick<HandlerMap, 'check.run'> {
  return { 'check.run': (payload) => runCheck(payload, options) };
}
