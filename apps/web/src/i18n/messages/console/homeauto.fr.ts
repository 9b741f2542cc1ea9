import type { AreaTranslation } from './en.js';
import type { homeauto as english } from './homeauto.en.js';

export const homeauto: AreaTranslation<typeof english> = {
  'homeauto.action':
    '{verb, select, turnOff {Éteindre} turnOn {Allumer} run {Lancer} press {Appuyer} unlock {Déverrouiller} lock {Verrouiller} close {Fermer} other {Ouvrir}}',
  'homeauto.actionNamed':
    '{verb, select, turnOff {Éteindre {name}} turnOn {Allumer {name}} run {Lancer {name}} press {Appuyer sur {name}} unlock {Déverrouiller {name}} lock {Verrouiller {name}} close {Fermer {name}} other {Ouvrir {name}}}',
  'homeauto.filters': 'Filtrer les entités',
  'homeauto.domain': 'Domaine',
  'homeauto.everyDomain': 'Tous les domaines',
  'homeauto.loadingEntities': 'Chargement des entités',
  'homeauto.noEntities': 'Aucune entité',
  'homeauto.entities': 'Entités',
  'homeauto.name': 'Nom',
  'homeauto.entity': 'Entité',
  'homeauto.state': 'État',
  'homeauto.changed': 'Modifié',
  'homeauto.control': 'Commande',
  'homeauto.loading': 'Chargement de la domotique',
  'homeauto.none': 'Aucune domotique',
  'homeauto.noneText': 'Un connecteur Home Assistant (Administration, Connecteurs) amène ici ses entités.',
  'homeauto.choose': 'Choisir un Home Assistant',
  'homeauto.instance': 'Home Assistant',
};
