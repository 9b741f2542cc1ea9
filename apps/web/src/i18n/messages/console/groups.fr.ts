import type { AreaTranslation } from './en.js';
import type { groups as english } from './groups.en.js';

export const groups: AreaTranslation<typeof english> = {
  'groups.title': 'Groupes',
  'groups.count': '{n, plural, one {# groupe} other {# groupes}}',
  'groups.new': 'Nouveau groupe',
  'groups.loading': 'Chargement des groupes',
  'groups.none': 'Aucun groupe pour l’instant',
  'groups.noneText':
    'Un groupe rassemble des équipements pour y lancer une commande ou pour filtrer la liste des équipements.',
  'groups.column':
    '{column, select, name {Nom} assets {Équipements} description {Description} other {Modifié}}',
  'groups.create': 'Créer le groupe',
  'groups.name': 'Nom',
  'groups.description': 'Description',
  'groups.loadingGroup': 'Chargement du groupe',
  'groups.inMaintenance': 'des membres de ce groupe sont dans une fenêtre de maintenance',
  'groups.rename': 'Renommer',
  'groups.deleteTitle': 'Supprimer le groupe {name} ?',
  'groups.deleteConfirm': 'Supprimer le groupe',
  'groups.deleteText':
    'Le groupe disparaît ; {n, plural, one {son # équipement reste tel quel} other {ses # équipements restent tels quels}}.',
  'groups.members': 'Membres ({n})',
  'groups.membersTable': 'Membres',
  'groups.addMember': 'Ajouter un équipement au groupe',
  'groups.noMembers': 'Aucun équipement dans ce groupe pour l’instant',
  'groups.memberColumn': '{column, select, asset {Équipement} status {État} other {Plateforme}}',
  'groups.notVisible': 'non visible',
  'groups.removeMember': 'Retirer {name} du groupe',
  'groups.memberPages': 'Pages des membres',
  'groups.memberPage': 'Page {page} sur {pages}',
};
