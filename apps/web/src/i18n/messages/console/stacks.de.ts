import type { AreaTranslation } from './en.js';
import type { stacks as english } from './stacks.en.js';

export const stacks: AreaTranslation<typeof english> = {
  'stacks.loadingEndpoints': 'Endpunkte werden geladen',
  'stacks.noManager': 'Keine Stack-Verwaltung',
  'stacks.noManagerText': 'Ein Portainer-Connector (Verwaltung, Konnektoren) bringt seine Endpunkte hierher.',
  'stacks.loadingStacks': 'Stacks von {name} werden geladen',
  'stacks.none': 'Keine Stacks',
  'stacks.noneText': 'Portainer verwaltet auf diesem Endpunkt keinen Stack.',
  'stacks.tableLabel': 'Stacks auf {name}',
  'stacks.stack': 'Stack',
  'stacks.type': 'Typ',
  'stacks.status': 'Status',
  'stacks.variables': 'Variablen',
  'stacks.created': 'Erstellt',
  'stacks.updated': 'Aktualisiert',
  'stacks.statusName': '{status, select, active {aktiv} inactive {inaktiv} other {{status}}}',
};
