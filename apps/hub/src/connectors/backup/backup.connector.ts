/**
 * Proxmox Backup Server as a connector: the server is one asset; datastores, usage, maintenance mode and the
 * groups of every namespace mapped. A token PBS shows no datastore at all is checked for `Datastore.Audit`:
 * PBS leaves out what a token may not audit without an error, so an empty list alone says nothing.
 */
import type { BackupDatastore, BackupMaintenance } from '@svc/protocol';
import type { ConnectorDriver } from '../base/connector.js';
import { UpstreamError } from '../base/upstream-error.js';
import { createBackupClient, type PbsStore } from './backup.client.js';
import type { PbsGroup, PbsUsage } from './backup.upstream.js';

type BackupClient = ReturnType<typeof createBackupClient>;

const epochToIso = (epoch: number | null | undefined): string | null =>
  epoch === null || epoch === undefined || epoch <= 0 ? null : new Date(epoch * 1000).toISOString();

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The `maintenance-mode` property string (`type=offline,message=disk%20swap`, or a bare `read-only`, its
 * default key) as a mode and message. PBS percent-encodes the message and may quote it.
 */
function parseMaintenance(value: string | null): BackupMaintenance | null {
  if (value === null || value.trim() === '') return null;
  let mode = '';
  let message: string | null = null;
  const comma = value.indexOf(',');
  const parts = comma === -1 ? [value] : [value.slice(0, comma), value.slice(comma + 1)];
  for (const part of parts) {
    const equals = part.indexOf('=');
    const key = equals === -1 ? 'type' : part.slice(0, equals).trim();
    const raw = equals === -1 ? part.trim() : part.slice(equals + 1).trim();
    if (key === 'type') mode = raw;
    else if (key === 'message') message = decoded(raw.replace(/^"(.*)"$/, '$1').replace(/\\"/g, '"'));
  }
  return mode === '' ? null : { mode, message: message === '' ? null : message };
}

interface NamespacedGroup {
  ns: string;
  group: PbsGroup;
}

function mapDatastore(
  store: PbsStore,
  usage: PbsUsage | undefined,
  groups: NamespacedGroup[],
  groupsError: string | null,
): BackupDatastore {
  return {
    store: store.store,
    comment: store.comment,
    maintenance: parseMaintenance(store.maintenance),
    total: usage?.total ?? null,
    used: usage?.used ?? null,
    avail: usage?.avail ?? null,
    error: usage?.error ?? groupsError,
    // 0 means a flat trend upstream: no estimate.
    estimated_full_at: epochToIso(usage?.['estimated-full-date']),
    groups: groups
      .map(({ ns, group: g }) => ({
        type: g['backup-type'],
        id: g['backup-id'],
        namespace: ns,
        last_backup_at: epochToIso(g['last-backup']),
        count: g['backup-count'],
        owner: g.owner ?? null,
      }))
      .sort(
        (a, b) =>
          a.namespace.localeCompare(b.namespace) ||
          a.type.localeCompare(b.type) ||
          a.id.localeCompare(b.id, undefined, { numeric: true }),
      ),
  };
}

/** The groups of every namespace of a store. */
async function groupsOf(client: BackupClient, store: string): Promise<NamespacedGroup[]> {
  const all: NamespacedGroup[] = [];
  for (const ns of await client.namespaces(store)) {
    for (const group of await client.groups(store, ns)) all.push({ ns, group });
  }
  return all;
}

const auditHint =
  'grant the DatastoreAudit role on /datastore to the API token (and to its user, for a privilege-separated token)';

/**
 * Why PBS showed no datastore: none exist (the token may audit them: fine), or the token lacks
 * `Datastore.Audit`, which PBS answers with an empty list rather than a 403.
 */
async function explainNoDatastore(client: BackupClient): Promise<void> {
  let permissions: Record<string, Record<string, boolean | number>>;
  try {
    permissions = await client.permissions();
  } catch (error) {
    if (!(error instanceof UpstreamError) || error.failure !== 'http') throw error;
    throw new UpstreamError(
      'permission',
      `no datastore is visible to this token, and its permissions could not be read (${error.message}): ` +
        `a token without Datastore.Audit sees none; ${auditHint}`,
    );
  }
  const audits = Object.entries(permissions).some(
    ([path, privs]) =>
      (path === '/' || path === '/datastore' || path.startsWith('/datastore/')) &&
      privs['Datastore.Audit'] !== undefined,
  );
  if (!audits) {
    throw new UpstreamError(
      'permission',
      `no datastore is visible: the API token lacks the Datastore.Audit privilege; ${auditHint}`,
    );
  }
}

/** Every datastore with usage and groups; a store whose groups cannot be read keeps its error, not the call's. */
export async function readDatastores(client: BackupClient): Promise<BackupDatastore[]> {
  const [stores, usage] = await Promise.all([client.datastores(), client.usage()]);
  if (stores.length === 0) await explainNoDatastore(client);
  const byStore = new Map(usage.map((u) => [u.store, u]));
  const result: BackupDatastore[] = [];
  for (const store of stores) {
    const use = byStore.get(store.store);
    let groups: NamespacedGroup[] = [];
    let groupsError: string | null = null;
    // A store that cannot be read (or is offline for maintenance) says so in its usage entry.
    if (!use?.error) {
      try {
        groups = await groupsOf(client, store.store);
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
