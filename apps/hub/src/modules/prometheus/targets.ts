/**
 * The `http_sd_config` answer, built from the assets a caller may see, their groups and the exporter ports
 * (decision 0074). Pure.
 *
 * Address: the asset's `prometheus.address:` tag, else its first IP address, else its hostname; an asset with
 * none, or tagged `prometheus.skip`, is left out. Port: its `prometheus.port:` tag, else the port of its
 * group whose name sorts first among those given one, else the default.
 */
import {
  prometheusTags,
  type Asset,
  type PrometheusExporter,
  type PrometheusTargetGroup,
} from '@svc/protocol';

export interface TargetGroupInfo {
  id: string;
  name: string;
}

function tagValue(tags: readonly string[], prefix: string): string | null {
  const tag = tags.find((t) => t.startsWith(prefix));
  return tag === undefined ? null : tag.slice(prefix.length);
}

function portOf(text: string | null): number | null {
  if (text === null || !/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65_535 ? port : null;
}

/** `host:port`, an IPv6 address in brackets. */
function hostPort(host: string, port: number): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare.includes(':') ? `[${bare}]:${String(port)}` : `${bare}:${String(port)}`;
}

function addressOf(asset: Asset): string | null {
  const tagged = tagValue(asset.tags, prometheusTags.address);
  if (tagged !== null && tagged !== '') return tagged;
  return asset.ip_addresses[0] ?? asset.hostname ?? null;
}

export function buildTargets(
  assets: readonly Asset[],
  groupsOf: ReadonlyMap<string, readonly TargetGroupInfo[]>,
  exporter: PrometheusExporter,
): PrometheusTargetGroup[] {
  const groupPort = new Map(exporter.group_ports.map((g) => [g.group_id, g.port]));
  const out: PrometheusTargetGroup[] = [];
  for (const asset of assets) {
    if (asset.tags.includes(prometheusTags.skip)) continue;
    const address = addressOf(asset);
    if (address === null) continue;
    const groups = [...(groupsOf.get(asset.id) ?? [])].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    const fromGroup = groups.map((g) => groupPort.get(g.id)).find((p) => p !== undefined);
    const port = portOf(tagValue(asset.tags, prometheusTags.port)) ?? fromGroup ?? exporter.default_port;
    out.push({
      targets: [hostPort(address, port)],
      labels: {
        asset_id: asset.id,
        name: asset.name,
        // Consul's convention: separators at both ends, so `,web,` matches a whole group name.
        groups: groups.length === 0 ? '' : `,${groups.map((g) => g.name).join(',')},`,
        platform: asset.platform,
        status: asset.status,
      },
    });
  }
  return out;
}
