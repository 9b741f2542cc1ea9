/** What connector tests share: a resolver that sends fake upstream names to loopback, and adding a connector. */
import type { Asset, Connector } from '@svc/protocol';
import type { TestHub } from '@svc/testkit';
import type { ResolvedAddress, Resolver } from '../platform/outbound/guarded-lookup.js';

/** `*.test` names (the fakes' certificates carry them) resolve to 127.0.0.1; anything else fails. */
export const fakeUpstreamResolver: Resolver = (host) => {
  const answer: ResolvedAddress = { address: '127.0.0.1', family: 4 };
  return host.endsWith('.test') || host === 'localhost'
    ? Promise.resolve([answer])
    : Promise.reject(new Error(`ENOTFOUND ${host}`));
};

export async function addConnector(t: TestHub, body: Record<string, unknown>): Promise<Connector> {
  const res = await t.request('POST', '/api/v2/connectors', { body });
  if (res.status !== 201) throw new Error(`connector create failed: ${String(res.status)} ${res.text}`);
  const created = res.json.data as Connector;
  const check = await t.request('POST', `/api/v2/connectors/${created.id}/test`);
  if (check.status !== 200) throw new Error(`connector test failed: ${String(check.status)} ${check.text}`);
  return created;
}

/** The asset a connector brought for an upstream id. */
export async function connectorAssetId(t: TestHub, connectorId: string, externalId: string): Promise<string> {
  const res = await t.request('GET', '/api/v2/assets?per_page=500');
  const assets = res.json.data as Asset[];
  const found = assets.find(
    (a) => a.connector?.connector_id === connectorId && a.connector.external_id === externalId,
  );
  if (!found) throw new Error(`no asset for ${externalId}`);
  return found.id;
}
