import type { AlertSeverity } from '@svc/protocol';

/** A severity as a coloured label: info, warning, critical. */
export function SeverityBadge({ severity }: { severity: AlertSeverity }) {
  return <span className={`severity-badge severity-${severity}`}>{severity}</span>;
}
