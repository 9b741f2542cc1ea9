import type { AreaTranslation } from './en.js';
import type { backup as english } from './backup.en.js';

export const backup: AreaTranslation<typeof english> = {
  'backup.loadingServers': 'Backup-Server werden geladen',
  'backup.noServers': 'Keine Backup-Server',
  'backup.noServersText':
    'Fügen Sie einen Proxmox-Backup-Server-Konnektor hinzu (Verwaltung → Konnektoren), um seine Datenspeicher hier zu sehen.',
  'backup.loadingDatastores': 'Datenspeicher werden geladen',
  'backup.datastore': 'Datenspeicher {store}',
  'backup.maintenance':
    '{mode, select, read-only {Wartungsmodus schreibgeschützt: Sicherungen werden abgelehnt, Wiederherstellungen funktionieren} offline {Wartungsmodus offline: weder Sicherungen noch Wiederherstellungen funktionieren} other {Wartungsmodus {mode}}}',
  'backup.usageLabel': 'Belegung von {store}',
  'backup.usage': '{used} von {total} belegt',
  'backup.free': ', {avail} frei',
  'backup.fullAround': ' · voll um {time}',
  'backup.groups': 'Backup-Gruppen in {store}',
  'backup.namespace': 'Namensraum',
  'backup.group': 'Gruppe',
  'backup.lastBackup': 'Letzte Sicherung',
  'backup.snapshots': 'Snapshots',
  'backup.owner': 'Eigentümer',
  'backup.root': 'Wurzel',
};
