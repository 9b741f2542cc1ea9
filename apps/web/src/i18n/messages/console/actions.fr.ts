import type { AreaTranslation } from './en.js';
import type { actions as english } from './actions.en.js';

export const actions: AreaTranslation<typeof english> = {
  'actions.title': 'Actions enregistrées',
  'actions.new': 'Nouvelle action',
  'actions.newTitle': 'Nouvelle action enregistrée',
  'actions.save': 'Enregistrer l’action',
  'actions.name': 'Nom',
  'actions.command': 'Commande',
  'actions.runsOn': 'S’exécute sur',
  'actions.created': 'Créée',
  'actions.onGroup': 'groupe {name}',
  'actions.onAssets': '{n, plural, one {# actif} other {# actifs}}',
  'actions.loading': 'Chargement des actions enregistrées',
  'actions.none': 'Aucune action enregistrée pour l’instant',
  'actions.noneText':
    'Une action enregistrée garde une commande et l’endroit où elle s’exécute, pour la relancer d’un clic.',
  'actions.run': 'Exécuter',
  'actions.runNamed': 'Exécuter {name}',
  'actions.running': 'Exécution…',
  'actions.resultsOf': 'Résultats de {name}',
  'actions.deleteTitle': 'Supprimer {name} ?',
  'actions.deleteText': 'L’action est supprimée ; ce qu’elle a exécuté reste dans le journal d’audit.',
};
