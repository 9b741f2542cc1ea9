/**
 * What breaks if this asset goes down (decision 0080): the count of what depends on it, and the list, nearest
 * first, each with the way it depends (as the caller's own graph draws it).
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { BlastRadius } from '@svc/protocol';
import { hub } from '../../api/client';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';

const blastRadiusKey = (assetId: string) => ['dependencies', 'blast-radius', assetId] as const;

export function useBlastRadius(assetId: string | null) {
  return useQuery({
    queryKey: blastRadiusKey(assetId ?? ''),
    queryFn: async () => (await hub.call('dependencies.blastRadius', { params: { id: assetId ?? '' } })).data,
    enabled: assetId !== null,
  });
}

/** "12 assets depend on this (3 directly)", with containers and bounds said when there are some. */
export function blastRadiusText(r: BlastRadius): string {
  if (r.total === 0) return 'Nothing depends on this.';
  const what = r.assets === 1 ? '1 asset' : `${String(r.assets)} assets`;
  const containers =
    r.containers === 0 ? '' : ` and ${String(r.containers)} container${r.containers === 1 ? '' : 's'}`;
  const verb = r.total === 1 ? 'depends' : 'depend';
  const direct = r.direct === r.total ? '' : ` (${String(r.direct)} directly)`;
  const deeper = r.depth_limited ? `; more lie deeper than ${String(r.max_depth)} links` : '';
  return `${what}${containers} ${verb} on this${direct}${deeper}.`;
}

export function BlastRadiusPanel({ assetId }: { assetId: string }) {
  const radius = useBlastRadius(assetId);
  const names = new Map(radius.data?.dependents.map((d) => [d.id, d.name]));
  return (
    <section className="blast-radius" aria-labelledby="blast-radius-title">
      <h2 id="blast-radius-title">Blast radius</h2>
      {radius.isPending && <Loading label="Loading what depends on this" />}
      {radius.isError && <ErrorNotice error={radius.error} retry={() => void radius.refetch()} />}
      {radius.isSuccess && (
        <>
          <p className="blast-radius-count">{blastRadiusText(radius.data)}</p>
          {radius.data.dependents.length > 0 && (
            <ul className="blast-radius-list">
              {radius.data.dependents.map((d) => (
                <li key={d.id}>
                  {d.kind === 'container' ? (
                    d.name
                  ) : (
                    <Link to={`/assets/${encodeURIComponent(d.id)}`}>{d.name}</Link>
                  )}{' '}
                  <span className="muted">
                    ({d.kind},{' '}
                    {d.depth === 1
                      ? 'directly'
                      : `via ${d.path
                          .slice(1, -1)
                          .map((id) => names.get(id) ?? id)
                          .join(' → ')}`}
                    )
                  </span>
                </li>
              ))}
            </ul>
          )}
          {radius.data.truncated && (
            <p className="muted">
              The first {radius.data.dependents.length} of {radius.data.total} are listed.
            </p>
          )}
          <p className="muted small">
            <Link to="/dependencies">Dependency graph</Link>
          </p>
        </>
      )}
    </section>
  );
}
