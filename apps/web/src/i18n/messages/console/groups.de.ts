import type { AreaTranslation } from './en.js';
import type { groups as english } from './groups.en.js';

export const groups: AreaTranslation<typeof english> = {
  'groups.title': 'Gruppen',
  'groups.count': '{n, plural, one {# Gruppe} other {# Gruppen}}',
  'groups.new': 'Neue Gruppe',
  'groups.loading': 'Gruppen werden geladen',
  'groups.none': 'Noch keine Gruppen',
  'groups.noneText':
    'Eine Gruppe fasst Assets zusammen, um einen Befehl darauf auszuführen oder die Asset-Liste danach zu filtern.',
  'groups.column':
    '{column, select, name {Name} assets {Assets} description {Beschreibung} other {Geändert}}',
  'groups.create': 'Gruppe anlegen',
  'groups.name': 'Name',
  'groups.description': 'Beschreibung',
  'groups.loadingGroup': 'Gruppe wird geladen',
  'groups.inMaintenance': 'Mitglieder dieser Gruppe sind in einem Wartungsfenster',
  'groups.rename': 'Umbenennen',
  'groups.deleteTitle': 'Gruppe {name} löschen?',
  'groups.deleteConfirm': 'Gruppe löschen',
  'groups.deleteText':
    'Die Gruppe wird gelöscht; {n, plural, one {ihr # Asset bleibt, wie es ist} other {ihre # Assets bleiben, wie sie sind}}.',
  'groups.members': 'Mitglieder ({n})',
  'groups.membersTable': 'Mitglieder',
  'groups.addMember': 'Asset zur Gruppe hinzufügen',
  'groups.noMembers': 'Noch keine Assets in dieser Gruppe',
  'groups.memberColumn': '{column, select, asset {Asset} status {Status} other {Plattform}}',
  'groups.notVisible': 'nicht sichtbar',
  'groups.removeMember': '{name} aus der Gruppe entfernen',
  'groups.memberPages': 'Seiten der Mitglieder',
  'groups.memberPage': 'Seite {page} von {pages}',
};
