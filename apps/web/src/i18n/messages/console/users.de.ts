import type { AreaTranslation } from './en.js';
import type { users as english } from './users.en.js';

export const users: AreaTranslation<typeof english> = {
  'users.title': 'Benutzer',
  'users.add': 'Benutzer hinzufügen',
  'users.addTitle': 'Einen Benutzer hinzufügen',
  'users.adding': 'Wird hinzugefügt…',
  'users.username': 'Benutzername',
  'users.usernameHint': 'Buchstaben, Ziffern und . _ @ -',
  'users.password': 'Passwort',
  'users.passwordHint': 'Mindestens {min} Zeichen; teilen Sie es dem Benutzer über einen sicheren Kanal mit.',
  'users.role': 'Rolle',
  'users.roleDescription':
    '{role, select, owner {alles; dem beim ersten Start angelegten Konto vorbehalten (Notfallzugang)} admin {alles außer den Vorrechten des Eigentümers: Schlüssel, Benutzer, Einstellungen, TLS, Registrierung} operator {liest und betreibt die Flotte: Befehle, Dateien, Dienste, Stromversorgung; keine Administration} other {nur lesen: jede Änderung wird abgelehnt}}',
  'users.changeRoleTitle': 'Rolle von {name} ändern',
  'users.resetTitle': 'Passwort von {name} zurücksetzen',
  'users.changeRole': 'Rolle ändern',
  'users.resetPassword': 'Passwort zurücksetzen',
  'users.changeRoleNamed': 'Rolle von {name} ändern',
  'users.resetPasswordNamed': 'Passwort von {name} zurücksetzen',
  'users.roleHint':
    '{description}. Die Sitzungen des Benutzers enden: Er meldet sich mit der neuen Rolle erneut an.',
  'users.newPassword': 'Neues Passwort',
  'users.newPasswordHint': 'Die Sitzungen des Benutzers enden; er meldet sich mit diesem Passwort an.',
  'users.removalTitle':
    '{kind, select, disable {{name} deaktivieren?} enable {{name} aktivieren?} other {{name} löschen?}}',
  'users.removalConfirm':
    '{kind, select, disable {Benutzer deaktivieren} enable {Benutzer aktivieren} other {Benutzer löschen}}',
  'users.enableText':
    '{name} kann sich wieder anmelden. Seine API-Schlüssel funktionieren wieder, und Zeitpläne, die unter ihm laufen, laufen ab ihrem nächsten Takt wieder.',
  'users.disableSignIn': '{name} kann sich nicht anmelden; jede seiner Konsolensitzungen endet jetzt.',
  'users.disableKeys':
    'Seine API-Schlüssel antworten mit 401, bis er wieder aktiviert wird (die Schlüssel bleiben erhalten).',
  'users.disableSchedules':
    'Zeitpläne, die unter ihm laufen, werden bis dahin bei jedem Takt mit Begründung abgelehnt.',
  'users.deleteAccount':
    'Das Konto von {name}, seine Konsolensitzungen, API-Schlüssel, Passkeys auf Telefonen und Push-Abonnements sowie persönliche Terminal-Snippets und Lesezeichen werden endgültig entfernt.',
  'users.deleteShared':
    'Seine geteilten Snippets bleiben für die anderen: Sie gehen an den unten gewählten Benutzer oder bleiben sonst unter der ID von {name}, weiterhin von Admins änderbar.',
  'users.deleteAudit':
    'Das Audit-Protokoll behält alles, was er getan hat, unter seiner ID und seinem Namen.',
  'users.deleteSchedules':
    'Laufen Zeitpläne unter {name}, wird das Löschen abgelehnt, außer Sie wählen, wer sie künftig ausführt (nie mit mehr Rechten, als {name} hatte).',
  'users.deleteSso':
    'Ein per Single Sign-on angelegtes Konto wird neu und leer angelegt, wenn {name} sich dort erneut anmeldet: Um ihn fernzuhalten, deaktivieren Sie ihn stattdessen oder entfernen ihn beim Identitätsanbieter.',
  'users.heir': 'Zeitpläne und geteilte Snippets gehen an',
  'users.nobody': 'niemanden: ablehnen, wenn Zeitpläne unter ihm laufen',
  'users.heirOption': '{name} ({role})',
  'users.loading': 'Benutzer werden geladen',
  'users.none': 'Keine Benutzer',
  'users.column':
    '{column, select, username {Benutzername} role {Rolle} created {Erstellt} other {Geändert}}',
  'users.you': 'Sie',
  'users.disabled': 'deaktiviert',
  'users.toggle': '{kind, select, disable {Deaktivieren} other {Aktivieren}}',
  'users.toggleNamed': '{kind, select, disable {{name} deaktivieren} other {{name} aktivieren}}',
  'users.roles': 'Rollen',
  'users.ownAccount': 'Ihr eigenes Passwort und Ihre Zwei-Faktor-Anmeldung finden Sie unter {link}.',
  'users.ownAccountLink': 'Ihrem Konto',
};
