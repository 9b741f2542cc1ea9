/** An UpstreamContext for contract tests of a connector client against its fake, without a hub. */
import type { ConnectorKind } from '@svc/protocol';
import type { FakeUpstreamServer } from '@svc/testkit';
import type { UpstreamContext } from '../connectors/base/connector.js';
import { createUpstreamHttp } from '../connectors/base/upstream-http.js';
import { defaultOutboundPolicy } from '../platform/outbound/address-policy.js';
import { createOutboundClient, type OutboundClient } from '../platform/outbound/outbound-client.js';
import { fakeUpstreamResolver } from './connector-fixtures.js';

export function contextFor(
  kind: ConnectorKind,
  server: FakeUpstreamServer,
  credentials: string,
  options: { host?: string; timeoutMs?: number; username?: string } = {},
): { ctx: UpstreamContext; close: () => Promise<void> } {
  const timeoutMs = options.timeoutMs ?? 500;
  const client: OutboundClient = createOutboundClient({
    policy: { ...defaultOutboundPolicy, allowLoopback: true },
    resolver: fakeUpstreamResolver,
    ca: server.ca,
  });
  const baseUrl = server
    .url(`${kind}.test`)
    .replace(`${kind}.test`, kind === 'virt' ? 'pve.test' : 'pbs.test');
  const ctx: UpstreamContext = {
    connector: {
      id: 'con_test',
      kind,
      name: 'test',
      baseUrl,
      username: options.username ?? null,
      credentials,
    },
    http: (options = {}) =>
      createUpstreamHttp({
        timeoutMs,
        retryDelayMs: 10,
        ...options,
        baseUrl: options.baseUrl ?? baseUrl,
        client: () => client,
      }),
    outbound: () => client,
    timeoutMs,
  };
  return { ctx, close: () => client.close() };
}
