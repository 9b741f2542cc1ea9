import type { AreaTranslation } from './en.js';
import type { enrollment as english } from './enrollment.en.js';

export const enrollment: AreaTranslation<typeof english> = {
  'enrollment.state': '{state, select, revoked {révoqué} usedUp {épuisé} expired {expiré} other {actif}}',
  'enrollment.createTitle': 'Créer un jeton d’enrôlement',
  'enrollment.create': 'Créer le jeton',
  'enrollment.creating': 'Création…',
  'enrollment.name': 'Nom',
  'enrollment.nameHint': 'À quoi il sert : une machine, un lot, un site.',
  'enrollment.lifetime': 'Durée de vie en heures',
  'enrollment.lifetimeHint': 'Vide : la valeur par défaut du hub (réglage {setting}).',
  'enrollment.uses': 'Enrôlements permis',
  'enrollment.usesHint': 'Vide : la valeur par défaut du hub (réglage {setting}).',
  'enrollment.createdTitle': 'Jeton {name} créé',
  'enrollment.shownOnce':
    'Le jeton n’est affiché que cette fois. Il permet {uses, plural, one {# enrôlement} other {# enrôlements}} jusqu’au {until}.',
  'enrollment.command': 'Commande d’enrôlement',
  'enrollment.runOwnCa':
    'Lancez-la sur la machine (svc-agent installé), puis {run}. {flag} épingle la CA propre du hub : l’agent fait confiance à ce hub et à aucun autre.',
  'enrollment.runSystemCa':
    'Le certificat de ce hub ne vient pas de sa propre CA : l’agent le vérifie avec les CA système de la machine.',
  'enrollment.token': 'Jeton',
  'enrollment.done': 'Terminé',
  'enrollment.title': 'Jetons d’enrôlement',
  'enrollment.intro':
    'Une machine rejoint le hub une fois avec un jeton : {command} l’échange contre ses propres identifiants. Les jetons expirent et permettent un nombre fixe d’enrôlements.',
  'enrollment.loading': 'Chargement des jetons d’enrôlement',
  'enrollment.none': 'Aucun jeton d’enrôlement',
  'enrollment.noneText': 'Créez-en un pour ajouter une machine avec un agent.',
  'enrollment.stateHeader': 'État',
  'enrollment.used': 'Utilisé',
  'enrollment.expires': 'Expire',
  'enrollment.created': 'Créé',
  'enrollment.usedOf': '{uses} sur {max}',
  'enrollment.revoke': 'Révoquer',
  'enrollment.revokeNamed': 'Révoquer {name}',
  'enrollment.revokeTitle': 'Révoquer le jeton {name} ?',
  'enrollment.revokeToken': 'Révoquer le jeton',
  'enrollment.revokeText':
    'Plus aucune machine ne peut s’enrôler avec. Les machines enrôlées avec lui gardent leurs propres identifiants.',
};
