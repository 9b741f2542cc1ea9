import type { AreaTranslation } from './en.js';
import type { backup as english } from './backup.en.js';

export const backup: AreaTranslation<typeof english> = {
  'backup.loadingServers': 'Chargement des serveurs de sauvegarde',
  'backup.noServers': 'Aucun serveur de sauvegarde',
  'backup.noServersText':
    'Ajoutez un connecteur Proxmox Backup Server (Administration → Connecteurs) pour voir ici ses datastores.',
  'backup.loadingDatastores': 'Chargement des datastores',
  'backup.datastore': 'Datastore {store}',
  'backup.maintenance':
    '{mode, select, read-only {Mode maintenance lecture seule : les sauvegardes sont refusées, les restaurations fonctionnent} offline {Mode maintenance hors ligne : ni sauvegardes ni restaurations ne fonctionnent} other {Mode maintenance {mode}}}',
  'backup.usageLabel': 'Occupation de {store}',
  'backup.usage': '{used} utilisés sur {total}',
  'backup.free': ', {avail} libres',
  'backup.fullAround': ' · plein vers {time}',
  'backup.groups': 'Groupes de sauvegarde dans {store}',
  'backup.namespace': 'Espace de noms',
  'backup.group': 'Groupe',
  'backup.lastBackup': 'Dernière sauvegarde',
  'backup.snapshots': 'Instantanés',
  'backup.owner': 'Propriétaire',
  'backup.root': 'racine',
};
