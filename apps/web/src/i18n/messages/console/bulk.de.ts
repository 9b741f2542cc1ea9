import type { AreaTranslation } from './en.js';
import type { bulk as english } from './bulk.en.js';

export const bulk: AreaTranslation<typeof english> = {
  'bulk.title': 'Dienst auf jedem Mitglied',
  'bulk.service': 'Dienst',
  'bulk.action': 'Aktion',
  'bulk.actionName': '{action, select, start {starten} stop {stoppen} other {neu starten}}',
  'bulk.sending': 'Wird gesendet…',
  'bulk.apply': 'Auf die Gruppe anwenden',
  'bulk.summary':
    '{total, plural, one {# Ziel} other {# Ziele}}: {ok} ok, {offline} offline, {error} mit Fehler',
  'bulk.results': 'Ergebnisse des Dienstes',
  'bulk.asset': 'Asset',
  'bulk.result': 'Ergebnis',
  'bulk.stateOrReason': 'Zustand oder Grund',
  'bulk.status': '{status, select, ok {ok} offline {offline} other {Fehler}}',
};
