/** Proxmox Backup Server as a connector: the server is one asset; datastores, usage and groups mapped. */
import type { BackupDatastore } from '@svc/protocol';
import type { ConnectorDriver } from '../base/connector.js';
import { UpstreamError } from '../base/upstream-error.js';
import { createBackupClient } from './backup.client.js';
import type { PbsGroup, PbsUsage } from './backup.upstream.js';

const epochToIso = (epoch: number | null | undefined): string | null =>
  epoch === null || epoch === undefined || epoch <= 0 ? null : new Date(epoch * 1000).toISOString();

function mapDatastore(
  store: { store: string; comment: string | null },
  usage: PbsUsage | undefined,
  groups: PbsGroup[],
  groupsError: string | null,
): BackupDatastore {
  return {
    store: store.store,
    comment: store.comment,
    total: usage?.total ?? null,
    used: usage?.used ?? null,
    avail: usage?.avail ?? null,
    error: usage?.error ?? groupsError,
    // 0 means a flat trend upstream: no estimate.
    estimated_full_at: epochToIso(usage?.['estimated-full-date']),
    groups: groups
      .map((g) => ({
        type: g['backup-type'],
        id: g['backup-id'],
        last_backup_at: epochToIso(g['last-backup']),
        count: g['backup-count'],
        owner: g.owner ?? null,
      }))
      .sort((a, b) => a.type.localeCompare(b.type) || a.id.localeCompare(b.id, undefined, { numeric: true })),
  };
}

/** Every datastore with usage and groups; a store whose groups cannot be read keeps its error, not the call's. */
export async function readDatastores(
  client: ReturnType<typeof createBackupClient>,
): Promise<BackupDatastore[]> {
  const [stores, usage] = await Promise.all([client.datastores(), client.usage()]);
  const byStore = new Map(usage.map((u) => [u.store, u]));
  const result: BackupDatastore[] = [];
  for (const store of stores) {
    const use = byStore.get(store.store);
    let groups: PbsGroup[] = [];
    let groupsError: string | null = null;
    if (!use?.error) {
      try {
        groups = await client.groups(store.store);
      } catch (error) {
        if (!(error instanceof UpstreamError) || error.failure !== 'http') throw error;
        groupsError = error.message;
      }
    }
    result.push(mapDatastore(store, use, groups, groupsError));
  }
  return result;
}

export const backupDriver: ConnectorDriver = {
  kind: 'backup',
  async check(ctx) {
    await createBackupClient(ctx).version();
  },
  async inventory(ctx) {
    const stores = await readDatastores(createBackupClient(ctx));
    const guests = [
      ...new Set(
        stores.flatMap((s) => s.groups.filter((g) => g.type !== 'host').map((g) => `${g.type}/${g.id}`)),
      ),
    ].sort();
    const hosts = [
      ...new Set(stores.flatMap((s) => s.groups.filter((g) => g.type === 'host').map((g) => g.id))),
    ].sort();
    const host = new URL(ctx.connector.baseUrl).hostname;
    return [
      {
        externalId: 'server',
        kind: 'backup',
        name: ctx.connector.name,
        hostname: host,
        status: 'online',
        // What the dependency graph links this server to: guests by VMID, hosts by name.
        facts: { backed_up_guests: guests, backed_up_hosts: hosts, datastores: stores.map((s) => s.store) },
      },
    ];
  },
};
