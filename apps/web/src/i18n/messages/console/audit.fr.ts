import type { AreaTranslation } from './en.js';
import type { audit as english } from './audit.en.js';

export const audit: AreaTranslation<typeof english> = {
  'audit.title': 'Journal d’audit',
  'audit.filters': 'Filtrer le journal d’audit',
  'audit.action': 'Action',
  'audit.actor': 'Acteur',
  'audit.actorPlaceholder': 'usr_… ou key_…',
  'audit.asset': 'Équipement',
  'audit.from': 'Du',
  'audit.until': 'Au',
  'audit.apply': 'Appliquer les filtres',
  'audit.clear': 'Effacer',
  'audit.caption': 'Événements d’audit, les plus récents d’abord',
  'audit.time': 'Heure',
  'audit.target': 'Cible',
  'audit.address': 'Adresse',
  'audit.detail': 'Détail',
  'audit.loading': 'Chargement du journal d’audit',
  'audit.noMatch': 'Aucun événement d’audit ne correspond',
  'audit.none': 'Aucun événement d’audit pour l’instant',
};
