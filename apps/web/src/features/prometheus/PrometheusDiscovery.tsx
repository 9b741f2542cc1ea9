/**
 * Prometheus service discovery (decision 0074): the URL a Prometheus `http_sd_configs` entry points at, a
 * configuration to copy, and the default exporter port (an asset's `prometheus.port:` tag or its group's port
 * wins).
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { PrometheusGroupPort, PrometheusSettings } from '@svc/protocol';
import { hub } from '../../api/client';
import { CopyButton } from '../../components/CopyButton';
import { PanelForm } from '../../components/PanelForm';
import { TextField } from '../../components/TextField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';
import { prometheusKey } from './prometheus-query';

function scrapeConfig(url: string): string {
  return [
    'scrape_configs:',
    '  - job_name: svc-fleet',
    '    http_sd_configs:',
    `      - url: ${url}`,
    '        authorization:',
    '          type: Bearer',
    '          credentials_file: /etc/prometheus/svc-sd.key   # an API key with the prometheus:sd scope',
    '        tls_config:',
    '          ca_file: /etc/prometheus/svc-ca.crt            # the hub CA (Admin → TLS)',
  ].join('\n');
}

export function PrometheusDiscovery({ settings }: { settings: PrometheusSettings }) {
  const { rich, t } = useT();
  const url = `${window.location.origin}${settings.targets_path}`;
  const [port, setPort] = useState(String(settings.exporter.default_port));
  const [groupPorts, setGroupPorts] = useState<{ group_id: string; port: string }[]>(() =>
    settings.exporter.group_ports.map((g) => ({ group_id: g.group_id, port: String(g.port) })),
  );
  const groups = useQuery({
    queryKey: ['groups', 'list', 'all'],
    queryFn: async () => (await hub.call('groups.list', { query: { per_page: 500 } })).data,
  });
  const save = useResourceMutation({
    mutationFn: async (body: { default_port: number; group_ports: PrometheusGroupPort[] }) =>
      (await hub.call('prometheus.exporter', { body })).data,
    invalidates: [prometheusKey],
    notice: (saved) => t('prometheus.portSaved', { port: String(saved.exporter.default_port) }),
  });
  const portNumber = Number(port);
  return (
    <section className="panel" aria-labelledby="prometheus-sd-title">
      <h2 id="prometheus-sd-title">{t('prometheus.discovery')}</h2>
      <p>
        {rich('prometheus.discoveryText', {
          config: <code>http_sd_configs</code>,
          scope: <code>prometheus:sd</code>,
        })}
      </p>
      <p className="sd-url">
        <code aria-label={t('prometheus.discoveryUrl')}>{url}</code>{' '}
        <CopyButton text={url} label={t('prometheus.copyUrl')} />
      </p>
      <pre aria-label={t('prometheus.configuration')} translate="no">
        {scrapeConfig(url)}
      </pre>
      <p className="muted">
        {rich('prometheus.labels', {
          labels: <code>asset_id, name, groups, platform, status</code>,
          tags: <code>prometheus.port:9101, prometheus.address:10.0.0.5, prometheus.skip</code>,
          n: settings.exporter.group_ports.length,
        })}
      </p>
      <PanelForm
        title={t('prometheus.exporterPorts')}
        mutation={save}
        onSubmit={() => {
          save.mutate({
            default_port: portNumber,
            group_ports: groupPorts
              .filter((g) => g.group_id !== '')
              .map((g) => ({ group_id: g.group_id, port: Number(g.port) })),
          });
        }}
        submitLabel={t('prometheus.savePort')}
        canSubmit={Number.isInteger(portNumber) && portNumber >= 1 && portNumber <= 65_535}
      >
        <TextField
          label={t('prometheus.defaultPort')}
          hint={t('prometheus.defaultPortHint')}
          problem={save.problems.default_port}
          value={port}
          onChange={setPort}
          inputMode="numeric"
        />
        {groupPorts.map((entry, i) => (
          <div className="run-options" key={i}>
            <label>
              {t('prometheus.group')}{' '}
              <select
                aria-label={t('prometheus.groupN', { n: i + 1 })}
                value={entry.group_id}
                onChange={(e) => {
                  setGroupPorts(groupPorts.map((g, j) => (j === i ? { ...g, group_id: e.target.value } : g)));
                }}
              >
                <option value="">{t('prometheus.chooseGroup')}</option>
                {(groups.data ?? []).map((g) => (
                  <option key={g.id} value={g.id} translate="no">
                    {g.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              {t('prometheus.port')}{' '}
              <input
                aria-label={t('prometheus.portOfGroup', { n: i + 1 })}
                inputMode="numeric"
                value={entry.port}
                onChange={(e) => {
                  setGroupPorts(groupPorts.map((g, j) => (j === i ? { ...g, port: e.target.value } : g)));
                }}
              />
            </label>
            <button
              type="button"
              onClick={() => {
                setGroupPorts(groupPorts.filter((_, j) => j !== i));
              }}
            >
              {t('common.remove')}
            </button>
          </div>
        ))}
        {save.problems.group_ports && <p className="field-error">{save.problems.group_ports}</p>}
        <button
          type="button"
          onClick={() => {
            setGroupPorts([...groupPorts, { group_id: '', port: '9100' }]);
          }}
        >
          {t('prometheus.addGroupPort')}
        </button>
        {save.notice && <p role="status">{save.notice}</p>}
      </PanelForm>
    </section>
  );
}
