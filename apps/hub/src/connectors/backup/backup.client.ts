/**
 * Proxmox Backup Server over its REST API with an API token. Its token header differs from PVE's (a colon
 * before the secret), and error bodies are bare text: the seam's default reason reads them as text. Groups
 * are read per namespace: without `ns` PBS answers the root namespace only.
 */
import type { UpstreamContext } from '../base/connector.js';
import { UpstreamError } from '../base/upstream-error.js';
import { parseUpstream } from '../base/upstream-http.js';
import {
  PbsDatastores,
  PbsGroups,
  PbsNamespaces,
  PbsPermissions,
  PbsUsage,
  type PbsGroup,
  type PbsUsage as Usage,
} from './backup.upstream.js';

export interface PbsStore {
  store: string;
  comment: string | null;
  /** The raw `maintenance-mode` property string, null when the store is in normal operation. */
  maintenance: string | null;
}

export function createBackupClient(ctx: UpstreamContext) {
  const http = ctx.http({
    baseUrl: `${ctx.connector.baseUrl.replace(/\/+$/, '')}/api2/json`,
    headers: { authorization: `PBSAPIToken=${ctx.connector.credentials}` },
  });
  const storePath = (store: string) => `/admin/datastore/${encodeURIComponent(store)}`;
  return {
    async version(): Promise<unknown> {
      return http.getJson('/version');
    },
    async datastores(): Promise<PbsStore[]> {
      const list = parseUpstream(
        PbsDatastores,
        await http.getJson('/admin/datastore'),
        'datastore list',
      ).data;
      return list.map((d) => ({
        store: d.store,
        comment: d.comment ?? null,
        maintenance: d.maintenance ?? null,
      }));
    },
    async usage(): Promise<Usage[]> {
      return parseUpstream(PbsUsage, await http.getJson('/status/datastore-usage'), 'datastore usage').data;
    },
    /** Every namespace path of a store, the root `""` included; only the root on a PBS before 2.2. */
    async namespaces(store: string): Promise<string[]> {
      try {
        const list = parseUpstream(
          PbsNamespaces,
          await http.getJson(`${storePath(store)}/namespace`),
          'namespace list',
        ).data;
        return [...new Set(['', ...list.map((n) => n.ns)])];
      } catch (error) {
        // PBS before 2.2 has no namespaces: `Path '…/namespace' not found.`
        if (error instanceof UpstreamError && error.status === 404) return [''];
        throw error;
      }
    },
    async groups(store: string, ns = ''): Promise<PbsGroup[]> {
      return parseUpstream(
        PbsGroups,
        // The root namespace is asked for without `ns`, which a PBS before 2.2 also understands.
        await http.getJson(`${storePath(store)}/groups`, ns === '' ? undefined : { ns }),
        'backup groups',
      ).data;
    },
    /** The token's privileges by ACL path (paths it holds nothing on are left out by PBS). */
    async permissions(): Promise<Record<string, Record<string, boolean | number>>> {
      return parseUpstream(PbsPermissions, await http.getJson('/access/permissions'), 'permissions').data;
    },
  };
}
