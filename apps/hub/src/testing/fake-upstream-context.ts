/**
 * An UpstreamContext on a fake upstream, for contract tests of a connector client: the real HTTP seam and
 * egress client (loopback allowed, the fake's CA trusted or its certificate pinned), no hub around it.
 */
import type { ConnectorKind } from '@svc/protocol';
import type { UpstreamContext } from '../connectors/base/connector.js';
import { createUpstreamHttp } from '../connectors/base/upstream-http.js';
import { defaultOutboundPolicy } from '../platform/outbound/address-policy.js';
import { createOutboundClient, type OutboundClient } from '../platform/outbound/outbound-client.js';

export interface FakeUpstreamTarget {
  url(host?: string): string;
  ca: string;
}

export function upstreamContextFor(
  fake: FakeUpstreamTarget,
  connector: { kind: ConnectorKind; credentials: string; username?: string | null; baseUrl?: string },
  options: { timeoutMs?: number } = {},
): UpstreamContext & { client: OutboundClient } {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const client = createOutboundClient({
    policy: { ...defaultOutboundPolicy, allowLoopback: true },
    ca: fake.ca,
    responseTimeoutMs: timeoutMs,
    connectTimeoutMs: timeoutMs,
  });
  const baseUrl = connector.baseUrl ?? fake.url();
  return {
    client,
    connector: {
      id: 'con_test',
      kind: connector.kind,
      name: `test ${connector.kind}`,
      baseUrl,
      username: connector.username ?? null,
      credentials: connector.credentials,
    },
    http: (httpOptions = {}) =>
      createUpstreamHttp({
        timeoutMs,
        retries: 0,
        ...httpOptions,
        baseUrl: httpOptions.baseUrl ?? baseUrl,
        client: () => client,
      }),
    outbound: () => client,
    timeoutMs,
  };
}
