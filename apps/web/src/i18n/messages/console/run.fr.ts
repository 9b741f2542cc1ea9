import type { AreaTranslation } from './en.js';
import type { run as english } from './run.en.js';

export const run: AreaTranslation<typeof english> = {
  'run.title': 'Lancer une commande',
  'run.viewerNotice': 'Votre rôle peut consulter le parc, mais pas y lancer de commandes.',
  'run.noGroups': 'Aucun groupe pour l’instant : {link}.',
  'run.makeGroup': 'en créer un',
  'run.command': 'Commande',
  'run.timeout': 'Délai (secondes, de 1 à {max})',
  'run.run': 'Lancer',
  'run.running': 'En cours…',
  'run.stopWaiting': 'Ne plus attendre',
  'run.stopNote':
    'Ne plus attendre n’arrête pas les commandes déjà envoyées : elles vont jusqu’au bout sur les agents.',
  'run.streamBroken': '{message} : les résultats ci-dessous sont ceux qui sont arrivés.',
  'run.results': 'Résultats',
  'run.targets': '{n, plural, one {# cible} other {# cibles}}',
  'run.statusCount':
    '{n} {status, select, ok {ok} timeout {délai dépassé} offline {hors ligne} other {en erreur}}',
  'run.summary': '{targets} : {counts}',
  'run.summaryRunning': '{summary} ; {n} en cours',
  'run.status':
    '{status, select, ok {ok} timeout {délai dépassé} offline {hors ligne} error {erreur} other {en cours…}}',
  'run.exitCode': 'code de sortie {code}',
  'run.waiting': 'En attente de l’agent…',
  'run.truncated': 'sortie tronquée',
  'run.truncatedTitle': 'La sortie dépassait ce que le hub conserve',
  'run.leftRunning':
    'La commande a laissé {n, plural, one {# processus} other {# processus}} en cours ; l’agent {killed, select, yes {les a arrêtés} other {n’a pas pu tous les arrêter}}.',
  'run.noOutput': 'Aucune sortie.',
};
