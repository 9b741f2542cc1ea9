/**
 * Prometheus service discovery (decision 0074): the URL a Prometheus `http_sd_configs` entry points at, a
 * configuration to copy, and the default exporter port (an asset's `prometheus.port:` tag or its group's port
 * wins).
 */
import { useState } from 'react';
import type { PrometheusSettings } from '@svc/protocol';
import { hub } from '../../api/client';
import { CopyButton } from '../../components/CopyButton';
import { PanelForm } from '../../components/PanelForm';
import { TextField } from '../../components/TextField';
import { useResourceMutation } from '../../components/use-resource-mutation';
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
  const url = `${window.location.origin}${settings.targets_path}`;
  const [port, setPort] = useState(String(settings.exporter.default_port));
  const save = useResourceMutation({
    mutationFn: async (defaultPort: number) =>
      (
        await hub.call('prometheus.exporter', {
          body: { default_port: defaultPort, group_ports: settings.exporter.group_ports },
        })
      ).data,
    invalidates: [prometheusKey],
    notice: (saved) => `Targets now default to port ${String(saved.exporter.default_port)}.`,
  });
  const portNumber = Number(port);
  return (
    <section className="panel" aria-labelledby="prometheus-sd-title">
      <h2 id="prometheus-sd-title">Service discovery</h2>
      <p>
        Prometheus lists the assets as targets from this URL (<code>http_sd_configs</code>), read with an API
        key holding the <code>prometheus:sd</code> scope; a key restricted to some assets lists only those.
      </p>
      <p className="sd-url">
        <code aria-label="Service discovery URL">{url}</code> <CopyButton text={url} label="Copy URL" />
      </p>
      <pre aria-label="Prometheus configuration">{scrapeConfig(url)}</pre>
      <p className="muted">
        Labels: <code>asset_id</code>, <code>name</code>, <code>groups</code>, <code>platform</code>,{' '}
        <code>status</code>. An asset&apos;s tags steer it: <code>prometheus.port:9101</code>,{' '}
        <code>prometheus.address:10.0.0.5</code>, <code>prometheus.skip</code>. Groups with their own port:{' '}
        {settings.exporter.group_ports.length}.
      </p>
      <PanelForm
        title="Exporter port"
        mutation={save}
        onSubmit={() => {
          save.mutate(portNumber);
        }}
        submitLabel="Save port"
        canSubmit={Number.isInteger(portNumber) && portNumber >= 1 && portNumber <= 65_535}
      >
        <TextField
          label="Default exporter port"
          hint="Of an asset with no port tag and no group port (node_exporter listens on 9100)"
          problem={save.problems.default_port}
          value={port}
          onChange={setPort}
          inputMode="numeric"
        />
        {save.notice && <p role="status">{save.notice}</p>}
      </PanelForm>
    </section>
  );
}
