import type { AreaTranslation } from './en.js';
import type { users as english } from './users.en.js';

export const users: AreaTranslation<typeof english> = {
  'users.title': 'Utilisateurs',
  'users.add': 'Ajouter un utilisateur',
  'users.addTitle': 'Ajouter un utilisateur',
  'users.adding': 'Ajout…',
  'users.username': 'Nom d’utilisateur',
  'users.usernameHint': 'Lettres, chiffres et . _ @ -',
  'users.password': 'Mot de passe',
  'users.passwordHint': 'Au moins {min} caractères ; transmettez-le à l’utilisateur par un canal sûr.',
  'users.role': 'Rôle',
  'users.roleDescription':
    '{role, select, owner {tout ; réservé au compte créé au premier démarrage (accès de secours)} admin {tout sauf les droits réservés au propriétaire : clés, utilisateurs, paramètres, TLS, enrôlement} operator {consulte et pilote le parc : commandes, fichiers, services, alimentation ; pas d’administration} other {lecture seule : toute modification est refusée}}',
  'users.changeRoleTitle': 'Changer le rôle de {name}',
  'users.resetTitle': 'Réinitialiser le mot de passe de {name}',
  'users.changeRole': 'Changer le rôle',
  'users.resetPassword': 'Réinitialiser le mot de passe',
  'users.changeRoleNamed': 'Changer le rôle de {name}',
  'users.resetPasswordNamed': 'Réinitialiser le mot de passe de {name}',
  'users.roleHint':
    '{description}. Les sessions de l’utilisateur se terminent : il se reconnecte avec le nouveau rôle.',
  'users.newPassword': 'Nouveau mot de passe',
  'users.newPasswordHint':
    'Les sessions de l’utilisateur se terminent ; il se connecte avec ce mot de passe.',
  'users.removalTitle':
    '{kind, select, disable {Désactiver {name} ?} enable {Réactiver {name} ?} other {Supprimer {name} ?}}',
  'users.removalConfirm':
    '{kind, select, disable {Désactiver l’utilisateur} enable {Réactiver l’utilisateur} other {Supprimer l’utilisateur}}',
  'users.enableText':
    '{name} peut de nouveau se connecter. Ses clés d’API fonctionnent de nouveau, et les planifications exécutées en son nom reprennent à leur prochaine échéance.',
  'users.disableSignIn':
    '{name} ne peut plus se connecter ; toutes ses sessions de console se terminent maintenant.',
  'users.disableKeys': 'Ses clés d’API répondent 401 jusqu’à sa réactivation (les clés sont conservées).',
  'users.disableSchedules':
    'Les planifications exécutées en son nom sont refusées à chaque échéance, avec le motif, jusque-là.',
  'users.deleteAccount':
    'Le compte de {name}, ses sessions de console, clés d’API, clés d’accès de téléphone et abonnements push, ainsi que ses extraits et favoris de terminal personnels sont supprimés définitivement.',
  'users.deleteShared':
    'Ses extraits partagés restent pour les autres : ils passent à l’utilisateur choisi ci-dessous, ou restent sinon sous l’identifiant de {name}, toujours modifiables par les administrateurs.',
  'users.deleteAudit': 'Le journal d’audit garde tout ce qu’il a fait, sous son identifiant et son nom.',
  'users.deleteSchedules':
    'Si des planifications s’exécutent en tant que {name}, la suppression est refusée à moins de choisir qui les exécute désormais (jamais avec plus de droits que {name}).',
  'users.deleteSso':
    'Un compte créé par authentification unique est recréé, vide, si {name} s’y connecte de nouveau : pour l’en empêcher, désactivez-le plutôt, ou supprimez-le chez le fournisseur d’identité.',
  'users.heir': 'Les planifications et les extraits partagés passent à',
  'users.nobody': 'personne : refuser si des planifications s’exécutent en son nom',
  'users.heirOption': '{name} ({role})',
  'users.loading': 'Chargement des utilisateurs',
  'users.none': 'Aucun utilisateur',
  'users.column': '{column, select, username {Nom d’utilisateur} role {Rôle} created {Créé} other {Modifié}}',
  'users.you': 'vous',
  'users.disabled': 'désactivé',
  'users.toggle': '{kind, select, disable {Désactiver} other {Réactiver}}',
  'users.toggleNamed': '{kind, select, disable {Désactiver {name}} other {Réactiver {name}}}',
  'users.roles': 'Rôles',
  'users.ownAccount': 'Votre propre mot de passe et votre connexion à deux facteurs sont dans {link}.',
  'users.ownAccountLink': 'votre compte',
};
