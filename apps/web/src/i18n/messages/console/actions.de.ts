import type { AreaTranslation } from './en.js';
import type { actions as english } from './actions.en.js';

export const actions: AreaTranslation<typeof english> = {
  'actions.title': 'Gespeicherte Aktionen',
  'actions.new': 'Neue Aktion',
  'actions.newTitle': 'Neue gespeicherte Aktion',
  'actions.save': 'Aktion speichern',
  'actions.name': 'Name',
  'actions.command': 'Befehl',
  'actions.runsOn': 'Läuft auf',
  'actions.created': 'Erstellt',
  'actions.onGroup': 'Gruppe {name}',
  'actions.onAssets': '{n, plural, one {# Asset} other {# Assets}}',
  'actions.loading': 'Gespeicherte Aktionen werden geladen',
  'actions.none': 'Noch keine gespeicherten Aktionen',
  'actions.noneText':
    'Eine gespeicherte Aktion merkt sich einen Befehl und wo er läuft, um ihn mit einem Klick erneut auszuführen.',
  'actions.run': 'Ausführen',
  'actions.runNamed': '{name} ausführen',
  'actions.running': 'Läuft…',
  'actions.resultsOf': 'Ergebnisse von {name}',
  'actions.deleteTitle': '{name} löschen?',
  'actions.deleteText': 'Die Aktion wird entfernt; was sie bisher ausgeführt hat, bleibt im Audit-Protokoll.',
};
