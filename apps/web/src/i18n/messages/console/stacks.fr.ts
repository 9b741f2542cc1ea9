import type { AreaTranslation } from './en.js';
import type { stacks as english } from './stacks.en.js';

export const stacks: AreaTranslation<typeof english> = {
  'stacks.loadingEndpoints': 'Chargement des endpoints',
  'stacks.noManager': 'Aucun gestionnaire de stacks',
  'stacks.noManagerText': 'Un connecteur Portainer (Administration, Connecteurs) amène ici ses endpoints.',
  'stacks.loadingStacks': 'Chargement des stacks de {name}',
  'stacks.none': 'Aucune stack',
  'stacks.noneText': 'Portainer ne gère aucune stack sur cet endpoint.',
  'stacks.tableLabel': 'Stacks sur {name}',
  'stacks.stack': 'Stack',
  'stacks.type': 'Type',
  'stacks.status': 'État',
  'stacks.variables': 'Variables',
  'stacks.created': 'Créée',
  'stacks.updated': 'Mise à jour',
  'stacks.statusName': '{status, select, active {active} inactive {inactive} other {{status}}}',
};
