/**
 * What a connector kind provides (a driver) and what it is given (an UpstreamContext): the connector's
 * settings and credentials, and the HTTP seam already bound to the connector's egress client and TLS. A kind's
 * folder holds `<kind>.client.ts` (calls), `<kind>.upstream.ts` (the vendor's response schemas) and
 * `<kind>.connector.ts` (this driver: mapping to our types).
 */
import type { AssetStatus, ConnectorAssetKind, ConnectorKind } from '@svc/protocol';
import type { OutboundClient } from '../../platform/outbound/outbound-client.js';
import type { UpstreamHttp, UpstreamHttpOptions } from './upstream-http.js';

/** A connector as a kind's client needs it. The credentials live in memory for the call only. @public */
export interface ConnectorTarget {
  id: string;
  kind: ConnectorKind;
  name: string;
  baseUrl: string;
  username: string | null;
  credentials: string;
}

export interface UpstreamContext {
  connector: ConnectorTarget;
  /** The HTTP seam on this connector's client; the kind adds its auth header and error text. */
  http(options?: Omit<UpstreamHttpOptions, 'client' | 'baseUrl'> & { baseUrl?: string }): UpstreamHttp;
  /** The egress-guarded client with this connector's TLS, for upstreams spoken to over WebSocket. */
  outbound(): OutboundClient;
  /** The per-request deadline the hub chose for this connector (ms). */
  timeoutMs: number;
}

/** One thing an upstream manages, to appear as an asset (`source: connector`). @public */
export interface InventoryItem {
  /** Stable upstream id, unique within the connector (`qemu/100`, `node/pve1`). */
  externalId: string;
  kind: ConnectorAssetKind;
  name: string;
  hostname?: string | null;
  ipAddresses?: string[];
  status: AssetStatus;
  /** `externalId` of the item it lives on (a guest's node), from the same inventory. */
  parentExternalId?: string | null;
  /** Small upstream facts the kind's routes and the dependency graph read (VMID, node, backed-up VMIDs). */
  facts?: Record<string, string | number | boolean | string[]>;
}

export interface ConnectorDriver {
  kind: ConnectorKind;
  /** Reaches the upstream and authenticates with a cheap read. Throws UpstreamError. */
  check(ctx: UpstreamContext): Promise<void>;
  /** What the upstream manages, as assets. Throws UpstreamError. */
  inventory(ctx: UpstreamContext): Promise<InventoryItem[]>;
}
