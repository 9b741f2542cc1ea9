/**
 * The command a machine runs to enroll with this hub, as `svc-agent enroll` takes it (apps/agent/src/cli):
 * the hub's address as this browser reaches it, the token, and the CA fingerprint to pin when the hub serves
 * its own CA (without it, the agent checks the hub against the system's CAs).
 */
export function enrollCommand(hubUrl: string, token: string, caFingerprint: string | null): string {
  const parts = ['svc-agent', 'enroll', '--hub', hubUrl, '--token', token];
  if (caFingerprint) parts.push('--ca-fingerprint', caFingerprint);
  return parts.join(' ');
}
