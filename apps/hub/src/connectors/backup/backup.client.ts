/**
 * Proxmox Backup Server over its REST API with an API token. Its token header differs from PVE's (a colon
 * before the secret), and error bodies are bare text: the seam's default reason reads them as text.
 */
import type { UpstreamContext } from '../base/connector.js';
import { parseUpstream } from '../base/upstream-http.js';
import {
  PbsDatastores,
  PbsGroups,
  PbsUsage,
  type PbsGroup,
  type PbsUsage as Usage,
} from './backup.upstream.js';

export function createBackupClient(ctx: UpstreamContext) {
  const http = ctx.http({
    baseUrl: `${ctx.connector.baseUrl.replace(/\/+$/, '')}/api2/json`,
    headers: { authorization: `PBSAPIToken=${ctx.connector.credentials}` },
  });
  return {
    async version(): Promise<unknown> {
      return http.getJson('/version');
    },
    async datastores(): Promise<{ store: string; comment: string | null }[]> {
      const list = parseUpstream(
        PbsDatastores,
        await http.getJson('/admin/datastore'),
        'datastore list',
      ).data;
      return list.map((d) => ({ store: d.store, comment: d.comment ?? null }));
    },
    async usage(): Promise<Usage[]> {
      return parseUpstream(PbsUsage, await http.getJson('/status/datastore-usage'), 'datastore usage').data;
    },
    async groups(store: string): Promise<PbsGroup[]> {
      return parseUpstream(
        PbsGroups,
        await http.getJson(`/admin/datastore/${encodeURIComponent(store)}/groups`),
        'backup groups',
      ).data;
    },
  };
}
