/** The backups page (features/backup): Proxmox Backup Server's datastores and backup groups. */
export const backup = {
  'backup.loadingServers': 'Loading backup servers',
  'backup.noServers': 'No backup servers',
  'backup.noServersText':
    'Add a Proxmox Backup Server connector (Admin → Connectors) to see its datastores here.',
  'backup.loadingDatastores': 'Loading datastores',
  'backup.datastore': 'Datastore {store}',
  'backup.maintenance':
    '{mode, select, read-only {Maintenance mode read-only: backups are refused, restores work} offline {Maintenance mode offline: neither backups nor restores work} other {Maintenance mode {mode}}}',
  'backup.usageLabel': '{store} usage',
  'backup.usage': '{used} used of {total}',
  'backup.free': ', {avail} free',
  'backup.fullAround': ' · full around {time}',
  'backup.groups': 'Backup groups in {store}',
  'backup.namespace': 'Namespace',
  'backup.group': 'Group',
  'backup.lastBackup': 'Last backup',
  'backup.snapshots': 'Snapshots',
  'backup.owner': 'Owner',
  'backup.root': 'root',
};
