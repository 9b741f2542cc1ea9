import type { AreaTranslation } from './en.js';
import type { bulk as english } from './bulk.en.js';

export const bulk: AreaTranslation<typeof english> = {
  'bulk.title': 'Service sur chaque membre',
  'bulk.service': 'Service',
  'bulk.action': 'Action',
  'bulk.actionName': '{action, select, start {démarrer} stop {arrêter} other {redémarrer}}',
  'bulk.sending': 'Envoi…',
  'bulk.apply': 'Appliquer au groupe',
  'bulk.summary':
    '{total, plural, one {# cible} other {# cibles}} : {ok} ok, {offline} hors ligne, {error} en erreur',
  'bulk.results': 'Résultats du service',
  'bulk.asset': 'Actif',
  'bulk.result': 'Résultat',
  'bulk.stateOrReason': 'État ou raison',
  'bulk.status': '{status, select, ok {ok} offline {hors ligne} other {erreur}}',
};
