import type { AreaTranslation } from './en.js';
import type { stacks as english } from './stacks.en.js';

export const stacks: AreaTranslation<typeof english> = {
  'stacks.loadingEndpoints': 'Cargando los endpoints',
  'stacks.noManager': 'Ningún gestor de stacks',
  'stacks.noManagerText': 'Un conector de Portainer (Administración, Conectores) trae aquí sus endpoints.',
  'stacks.loadingStacks': 'Cargando los stacks de {name}',
  'stacks.none': 'Ningún stack',
  'stacks.noneText': 'Portainer no gestiona ningún stack en este endpoint.',
  'stacks.tableLabel': 'Stacks en {name}',
  'stacks.stack': 'Stack',
  'stacks.type': 'Tipo',
  'stacks.status': 'Estado',
  'stacks.variables': 'Variables',
  'stacks.created': 'Creado',
  'stacks.updated': 'Actualizado',
  'stacks.statusName': '{status, select, active {activo} inactive {inactivo} other {{status}}}',
};
