import type { AssetStatus } from '@svc/protocol';

export function StatusBadge({ status }: { status: AssetStatus }) {
  return (
    <span className={`status-badge status-${status}`}>
      <span className="status-dot" aria-hidden="true" />
      {status}
    </span>
  );
}
