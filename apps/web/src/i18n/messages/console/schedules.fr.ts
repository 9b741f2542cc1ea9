import type { AreaTranslation } from './en.js';
import type { schedules as english } from './schedules.en.js';

export const schedules: AreaTranslation<typeof english> = {
  'schedules.title': 'Planifications',
  'schedules.new': 'Nouvelle planification',
  'schedules.inMaintenance':
    'des équipements sont dans une fenêtre de maintenance : les planifications prévues pour elle peuvent s’exécuter',
  'schedules.loading': 'Chargement des planifications',
  'schedules.none': 'Aucune planification pour l’instant',
  'schedules.noneText':
    'Une planification lance d’elle-même une commande ou une action enregistrée, aux moments que vous indiquez.',
  'schedules.column':
    '{column, select, name {Nom} when {Quand} runs {Lance} next {Prochaine exécution} other {Dernière exécution}}',
  'schedules.windowOnly': 'dans une fenêtre uniquement',
  'schedules.windowOnlyTitle': 'Ne s’exécute qu’à l’intérieur d’une fenêtre de maintenance',
  'schedules.savedAction': 'action enregistrée {id}',
  'schedules.paused': 'en pause',
  'schedules.noNextRun': 'aucune',
  'schedules.history': 'Historique',
  'schedules.historyOf': 'Historique de {name}',
  'schedules.toggle': '{enabled, select, yes {Suspendre} other {Reprendre}}',
  'schedules.toggleNamed': '{enabled, select, yes {Suspendre} other {Reprendre}} {name}',
  'schedules.deleteTitle': 'Supprimer {name} ?',
  'schedules.deleteText': 'La planification s’arrête et son historique d’exécutions est supprimé avec elle.',
  'schedules.save': 'Enregistrer la planification',
  'schedules.name': 'Nom',
  'schedules.cron': 'Expression cron',
  'schedules.cronHint': 'minute heure jour mois jour-de-semaine ; un sixième champ en tête pour les secondes',
  'schedules.timezone': 'Fuseau horaire',
  'schedules.onlyInWindow':
    'Uniquement dans une fenêtre de maintenance (un déclenchement hors fenêtre est sauté)',
  'schedules.runs': 'Lance',
  'schedules.runsCommand': 'Une commande',
  'schedules.runsAction': 'Une action enregistrée',
  'schedules.command': 'Commande',
  'schedules.action': 'Action enregistrée',
  'schedules.chooseAction': 'Choisir une action',
  'schedules.actionTargets': 'Sur les cibles propres de l’action',
  'schedules.runsOf': 'Exécutions de {name}',
  'schedules.runsTable': 'Exécutions',
  'schedules.loadingRuns': 'Chargement des exécutions',
  'schedules.noRuns': 'Aucune exécution pour l’instant',
  'schedules.runColumn':
    '{column, select, tick {Déclenchement} status {État} targets {Cibles} other {Remarque}}',
  'schedules.runStatus':
    '{status, select, running {en cours} completed {terminée} missed {manquée} interrupted {interrompue} failed {échouée} refused {refusée} skipped {sautée} other {{status}}}',
  'schedules.missed': '{n, plural, one {# déclenchement manqué} other {# déclenchements manqués}}',
  'schedules.okOf': '{ok} ok sur {total}',
};
