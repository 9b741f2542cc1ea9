/**
 * MCP session ids bound to the credential that opened them (decision 0073). The hub keeps no session state:
 * an id is a random part and a digest of the credential's id, so any hub process can tell, from the id alone,
 * whether the credential presenting it is the one that opened it. It grants nothing by itself; every request
 * still carries and is checked with its own credential.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Principal } from '../../access/principal.js';

/** The credential a session belongs to: the API key, or the console session, that opened it. */
function credentialOf(principal: Principal): string {
  if (principal.key) return `key:${principal.key.id}`;
  return `session:${principal.sessionId ?? principal.userId ?? ''}`;
}

function bindingOf(principal: Principal): string {
  return createHash('sha256')
    .update(`svc-mcp-session\n${credentialOf(principal)}`)
    .digest('hex')
    .slice(0, 32);
}

/** A new session id for this caller (visible ASCII, as the transport requires). */
export function newMcpSessionId(principal: Principal): string {
  return `mcs_${randomBytes(16).toString('hex')}.${bindingOf(principal)}`;
}

/** Whether a session id presented with a request was opened by this caller's credential. */
export function isMcpSessionOf(sessionId: string, principal: Principal): boolean {
  const match = /^mcs_[0-9a-f]{32}\.([0-9a-f]{32})$/.exec(sessionId);
  return match?.[1] === bindingOf(principal);
}
