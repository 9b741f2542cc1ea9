import type { AreaTranslation } from './en.js';
import type { maintenance as english } from './maintenance.en.js';

export const maintenance: AreaTranslation<typeof english> = {
  'maintenance.title': 'Maintenance',
  'maintenance.count': '{n, plural, one {# fenêtre} other {# fenêtres}}',
  'maintenance.new': 'Nouvelle fenêtre',
  'maintenance.loading': 'Chargement des fenêtres de maintenance',
  'maintenance.none': 'Aucune fenêtre de maintenance',
  'maintenance.noneText':
    'Tant qu’une fenêtre est en cours, les alertes de ses actifs sont enregistrées comme supprimées au lieu d’être notifiées.',
  'maintenance.windows': 'Fenêtres de maintenance',
  'maintenance.name': 'Nom',
  'maintenance.when': 'Quand',
  'maintenance.now': 'Maintenant',
  'maintenance.next': 'Prochaines',
  'maintenance.covers': 'Couvre',
  'maintenance.reason': 'Motif',
  'maintenance.recurringWhen': '{cron} pendant {minutes} min ({zone})',
  'maintenance.inProgress': 'En cours jusqu’à {time}',
  'maintenance.nextOf': 'Prochaines occurrences de {name}',
  'maintenance.assets': '{n, plural, one {# actif} other {# actifs}}',
  'maintenance.groups': '{n, plural, one {# groupe} other {# groupes}}',
  'maintenance.removeTitle': 'Retirer {name} ?',
  'maintenance.remove': 'Retirer la fenêtre',
  'maintenance.removeText':
    'Une occurrence en cours se termine maintenant ; les alertes sont de nouveau notifiées.',
  'maintenance.newTitle': 'Nouvelle fenêtre de maintenance',
  'maintenance.save': 'Enregistrer la fenêtre',
  'maintenance.create': 'Créer la fenêtre',
  'maintenance.coversMore':
    'Cette fenêtre couvre {assets} et {groups} ; les cibles choisies ici les remplacent toutes.',
  'maintenance.once': 'Une fois',
  'maintenance.recurring': 'Récurrente',
  'maintenance.starts': 'Début',
  'maintenance.ends': 'Fin',
  'maintenance.cron': 'Cron',
  'maintenance.cronHint': 'Quand chaque occurrence commence : minute heure jour mois jour-de-semaine',
  'maintenance.duration': 'Durée (minutes)',
  'maintenance.timezone': 'Fuseau horaire',
};
