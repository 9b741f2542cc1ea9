/**
 * A connector of one kind added to a test hub through the API (its fake's CA pinned), its first check and
 * inventory awaited, and the assets it brought: for the route tests of the connector areas.
 */
import type { Asset, ConnectorKind } from '@svc/protocol';
import type { TestHub } from '@svc/testkit';

export interface FakeTarget {
  url(host?: string): string;
  ca: string;
}

/** Hub env for route tests against a fake upstream on loopback. */
export const connectorTestEnv = { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' };

export async function addConnector(
  t: TestHub,
  kind: ConnectorKind,
  fake: FakeTarget,
  credentials: string,
): Promise<{ id: string; assets: Asset[] }> {
  const created = await t.request('POST', '/api/v2/connectors', {
    body: {
      kind,
      name: `${kind} fake`,
      base_url: fake.url(),
      credentials,
      tls_mode: 'pinned_ca',
      tls_ca: fake.ca,
    },
  });
  if (created.status !== 201) throw new Error(`connector not created: ${created.text}`);
  const id = (created.json.data as { id: string }).id;
  // A create starts the first check and inventory in the background: the test waits for that one, as a
  // person would, rather than start a second.
  for (let tries = 0; ; tries += 1) {
    const connector = await t.request('GET', `/api/v2/connectors/${id}`);
    const health = (connector.json.data as { health?: string } | undefined)?.health;
    if (health === 'ok') break;
    if (health === 'error' || tries > 200) throw new Error(`connector check failed: ${connector.text}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const list = await t.request('GET', '/api/v2/assets?per_page=500');
  const assets = (list.json.data as Asset[]).filter((a) => a.connector?.connector_id === id);
  return { id, assets };
}
