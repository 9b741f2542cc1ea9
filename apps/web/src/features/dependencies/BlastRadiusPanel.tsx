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
import { useT, type I18n } from '../../i18n/I18nProvider';

const blastRadiusKey = (assetId: string) => ['dependencies', 'blast-radius', assetId] as const;

export function useBlastRadius(assetId: string | null) {
  return useQuery({
    queryKey: blastRadiusKey(assetId ?? ''),
    queryFn: async () => (await hub.call('dependencies.blastRadius', { params: { id: assetId ?? '' } })).data,
    enabled: assetId !== null,
  });
}

/** "12 assets depend on this (3 directly)", with containers and bounds said when there are some. */
export function blastRadiusText(t: I18n['t'], r: BlastRadius): string {
  if (r.total === 0) return t('blast.none');
  return t('blast.summary', {
    what:
      r.containers === 0
        ? t('blast.assets', { assets: r.assets })
        : t('blast.assetsAndContainers', { assets: r.assets, containers: r.containers }),
    total: r.total,
    partial: r.direct === r.total ? 'no' : 'yes',
    direct: r.direct,
    limited: r.depth_limited ? 'yes' : 'no',
    depth: r.max_depth,
  });
}

export function BlastRadiusPanel({ assetId }: { assetId: string }) {
  const { t } = useT();
  const radius = useBlastRadius(assetId);
  const names = new Map(radius.data?.dependents.map((d) => [d.id, d.name]));
  return (
    <section className="blast-radius" aria-labelledby="blast-radius-title">
      <h2 id="blast-radius-title">{t('blast.title')}</h2>
      {radius.isPending && <Loading label={t('blast.loading')} />}
      {radius.isError && <ErrorNotice error={radius.error} retry={() => void radius.refetch()} />}
      {radius.isSuccess && (
        <>
          <p className="blast-radius-count">{blastRadiusText(t, radius.data)}</p>
          {radius.data.dependents.length > 0 && (
            <ul className="blast-radius-list">
              {radius.data.dependents.map((d) => (
                <li key={d.id}>
                  {d.kind === 'container' ? (
                    <span translate="no">{d.name}</span>
                  ) : (
                    <Link to={`/assets/${encodeURIComponent(d.id)}`} translate="no">
                      {d.name}
                    </Link>
                  )}{' '}
                  <span className="muted">
                    {d.depth === 1
                      ? t('blast.directly', { kind: d.kind })
                      : t('blast.via', {
                          kind: d.kind,
                          path: d.path
                            .slice(1, -1)
                            .map((id) => names.get(id) ?? id)
                            .join(' → '),
                        })}
                  </span>
                </li>
              ))}
            </ul>
          )}
          {radius.data.truncated && (
            <p className="muted">
              {t('blast.truncated', { shown: radius.data.dependents.length, total: radius.data.total })}
            </p>
          )}
          <p className="muted small">
            <Link to="/dependencies">{t('blast.graph')}</Link>
          </p>
        </>
      )}
    </section>
  );
}
