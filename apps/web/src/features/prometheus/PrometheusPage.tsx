/**
 * Prometheus (admins): service discovery of the fleet and remote write of its metrics. The two sections are
 * their own components, for a page of integrations to show as well.
 */
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { useT } from '../../i18n/I18nProvider';
import { PrometheusDiscovery } from './PrometheusDiscovery';
import { usePrometheusSettings } from './prometheus-query';
import { RemoteWriteSettings } from './RemoteWriteSettings';

export function PrometheusPage() {
  const { t } = useT();
  const settings = usePrometheusSettings();
  return (
    <section className="page" aria-labelledby="prometheus-title">
      <div className="page-header">
        <h1 id="prometheus-title" translate="no">
          Prometheus
        </h1>
      </div>
      {settings.isPending && <Loading label={t('prometheus.loading')} />}
      {settings.isError && <ErrorNotice error={settings.error} retry={() => void settings.refetch()} />}
      {settings.isSuccess && (
        <>
          <PrometheusDiscovery settings={settings.data} />
          <RemoteWriteSettings settings={settings.data} />
        </>
      )}
    </section>
  );
}
