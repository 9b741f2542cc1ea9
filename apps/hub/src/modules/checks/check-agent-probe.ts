/**
 * A check run from an agent (decision 0084): `check.run` sent to the chosen asset's agent through the gateway,
 * which reaches it on whichever hub process holds it. When the agent cannot run it (offline, held by a process
 * the cluster bus cannot reach, without the `checks` capability, refusing the request, not answering) the
 * run is "not run": recorded with the reason, neither up nor down, so an offline agent raises no check alert.
 */
import { checkLimits, type AgentRequestPayload, type CheckKind } from '@svc/protocol';
import { agentFailure, type AgentCaller } from '../../agents/agent-call.js';
import { HubError } from '../../platform/hub-error.js';
import type { ProbeOutcome } from '@svc/protocol/node/checks';
import type { CheckRow } from './checks.repository.js';

/** A run's outcome: probed (up or down), or not run at all (`error` says why). */
export type RunOutcome = (ProbeOutcome & { ran: true }) | (ProbeOutcome & { ran: false; ok: false });

export const notRun = (reason: string): RunOutcome => ({
  ran: false,
  ok: false,
  latencyMs: null,
  statusCode: null,
  error: reason.slice(0, checkLimits.errorLength),
  certExpiresAt: null,
});

/** How much longer than the check's own timeout the hub waits for the agent's answer. */
const replyMarginMs = 5_000;

function checkRunPayload(row: CheckRow): AgentRequestPayload<'check.run'> {
  return {
    kind: row.kind as CheckKind,
    target: row.target,
    timeout_ms: row.timeout_s * 1000,
    tls_verify: row.tls_verify === 1,
    expected_status: row.expected_status === null ? null : (JSON.parse(row.expected_status) as number[]),
    expected_body: row.expected_body,
  };
}

export async function probeFromAgent(
  agents: Pick<AgentCaller, 'gateway' | 'assets' | 'notConnected'>,
  row: CheckRow,
  assetId: string,
): Promise<RunOutcome> {
  const asset = await agents.assets.row(assetId);
  if (!asset) return notRun(`not run: asset ${assetId}, whose agent runs this check, no longer exists`);
  const who = `asset ${asset.name} (${asset.id})`;
  if (!agents.gateway.isConnected(assetId)) return notRun(`not run: ${agents.notConnected(asset).message}`);
  const session = agents.gateway.session(assetId);
  if (session !== null && !session.hello.capabilities.includes('checks')) {
    return notRun(
      `not run: the agent of ${who} does not run service checks (no capability checks): update it`,
    );
  }
  try {
    const result = await agents.gateway.request(assetId, 'check.run', checkRunPayload(row), {
      timeoutMs: row.timeout_s * 1000 + replyMarginMs,
    });
    return {
      ran: true,
      ok: result.ok,
      latencyMs: result.latency_ms,
      statusCode: result.status_code,
      error: result.error,
      certExpiresAt: result.cert_expires_at,
    };
  } catch (error) {
    const failure = agentFailure(error, asset, 'check.run');
    if (failure instanceof HubError) return notRun(`not run: ${failure.message}`);
    throw failure;
  }
}
