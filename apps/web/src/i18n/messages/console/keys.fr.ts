import type { AreaTranslation } from './en.js';
import type { keys as english } from './keys.en.js';

export const keys: AreaTranslation<typeof english> = {
  'keys.title': 'Clés d’API',
  'keys.create': 'Créer une clé',
  'keys.intro':
    'Les clés appellent l’API REST ({path}) avec un rôle, des portées et, au besoin, une liste d’équipements. Seul leur préfixe est conservé en clair.',
  'keys.loading': 'Chargement des clés',
  'keys.none': 'Aucune clé d’API',
  'keys.noneText': 'Créez-en une pour un script, une CLI ou un autre service.',
  'keys.column':
    '{column, select, name {Nom} key {Clé} role {Rôle} scopes {Portées} assets {Équipements} expires {Expire} lastUsed {Dernière utilisation} other {Créée}}',
  'keys.everything': 'tout (*)',
  'keys.assetsAll': 'tous',
  'keys.assetsSome': '{n, plural, one {# seulement} other {# seulement}}',
  'keys.expired': 'expirée',
  'keys.revoke': 'Révoquer',
  'keys.revokeNamed': 'Révoquer {name}',
  'keys.revokeTitle': 'Révoquer la clé {name} ?',
  'keys.revokeConfirm': 'Révoquer la clé',
  'keys.revokeText':
    'Toute requête avec {prefix} est refusée dès maintenant, et ses flux d’événements se ferment. Action irréversible.',
  'keys.createdTitle': 'Clé {name} créée',
  'keys.copyNow':
    'Copiez la clé maintenant : elle n’est affichée que cette fois. Le hub n’en garde que l’empreinte et ne peut plus l’afficher.',
  'keys.rawLabel': 'Clé d’API',
  'keys.sendAs': 'Envoyez-la comme {header} via HTTPS.',
  'keys.copied': 'Je l’ai copiée',
  'keys.editTitle': 'Modifier la clé {name}',
  'keys.createTitle': 'Créer une clé d’API',
  'keys.name': 'Nom',
  'keys.fixedRole':
    'Rôle : {role}. Le rôle d’une clé ne peut pas changer : créez une nouvelle clé pour un autre rôle.',
  'keys.role': 'Rôle',
  'keys.roleHint':
    'Ce que la clé peut faire au plus ; ses portées le restreignent encore. Une clé lecteur ne modifie jamais rien.',
  'keys.expires': 'Expire',
  'keys.expiresHint': 'Vide : la clé n’expire pas.',
  'keys.preset': '{days, select, 365 {1 an} other {{days} jours}}',
  'keys.never': 'Jamais',
  'keys.nothingChanged': 'Rien n’a changé.',
  'keys.scopes': 'Portées',
  'keys.everythingScope': 'Tout ({star})',
  'keys.readOnly': 'Préréglage lecture seule',
  'keys.clear': 'Vider',
  'keys.familyScopes': 'Portées {family}',
  'keys.allowedAssets': 'Équipements autorisés',
  'keys.allAssets':
    'Tous les équipements, y compris ceux ajoutés plus tard. Ajoutez des équipements pour y limiter la clé.',
  'keys.chosenAssets': 'Équipements choisis',
  'keys.findAsset': 'Trouver un équipement',
  'keys.findPlaceholder': 'Nom, nom d’hôte, adresse',
  'keys.matching': 'Équipements correspondants',
  'keys.add': 'Ajouter {name}',
  'keys.noOtherMatch': 'Aucun autre équipement ne correspond à « {query} ».',
};
