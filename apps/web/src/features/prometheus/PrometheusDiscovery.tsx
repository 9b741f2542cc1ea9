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
        title="Exporter ports"
        mutation={save}
        onSubmit={() => {
          save.mutate({
            default_port: portNumber,
            group_ports: groupPorts
              .filter((g) => g.group_id !== '')
              .map((g) => ({ group_id: g.group_id, port: Number(g.port) })),
          });
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
        {groupPorts.map((entry, i) => (
          <div className="run-options" key={i}>
            <label>
              Group{' '}
              <select
                aria-label={`Group ${String(i + 1)}`}
                value={entry.group_id}
                onChange={(e) => {
                  setGroupPorts(groupPorts.map((g, j) => (j === i ? { ...g, group_id: e.target.value } : g)));
                }}
              >
                <option value="">Choose a group</option>
                {(groups.data ?? []).map((g) => (
                  <option key={g.id} value={g.id}>
                    {g.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Port{' '}
              <input
                aria-label={`Port of group ${String(i + 1)}`}
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
              Remove
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
          Add a group port
        </button>
        {save.notice && <p role="status">{save.notice}</p>}
      </PanelForm>
    </section>
  );
}
