import type { AreaTranslation } from './en.js';
import type { backup as english } from './backup.en.js';

export const backup: AreaTranslation<typeof english> = {
  'backup.loadingServers': 'Cargando los servidores de copias',
  'backup.noServers': 'Ningún servidor de copias',
  'backup.noServersText':
    'Añada un conector de Proxmox Backup Server (Administración → Conectores) para ver aquí sus almacenes de datos.',
  'backup.loadingDatastores': 'Cargando los almacenes de datos',
  'backup.datastore': 'Almacén de datos {store}',
  'backup.maintenance':
    '{mode, select, read-only {Modo de mantenimiento solo lectura: se rechazan las copias, las restauraciones funcionan} offline {Modo de mantenimiento fuera de línea: no funcionan ni las copias ni las restauraciones} other {Modo de mantenimiento {mode}}}',
  'backup.usageLabel': 'Uso de {store}',
  'backup.usage': '{used} usados de {total}',
  'backup.free': ', {avail} libres',
  'backup.fullAround': ' · lleno hacia {time}',
  'backup.groups': 'Grupos de copias en {store}',
  'backup.namespace': 'Espacio de nombres',
  'backup.group': 'Grupo',
  'backup.lastBackup': 'Última copia',
  'backup.snapshots': 'Instantáneas',
  'backup.owner': 'Propietario',
  'backup.root': 'raíz',
};
