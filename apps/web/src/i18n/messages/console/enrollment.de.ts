import type { AreaTranslation } from './en.js';
import type { enrollment as english } from './enrollment.en.js';

export const enrollment: AreaTranslation<typeof english> = {
  'enrollment.state':
    '{state, select, revoked {widerrufen} usedUp {aufgebraucht} expired {abgelaufen} other {aktiv}}',
  'enrollment.createTitle': 'Registrierungs-Token erstellen',
  'enrollment.create': 'Token erstellen',
  'enrollment.creating': 'Wird erstellt…',
  'enrollment.name': 'Name',
  'enrollment.nameHint': 'Wofür es ist: eine Maschine, eine Gruppe, ein Standort.',
  'enrollment.lifetime': 'Gültigkeit in Stunden',
  'enrollment.lifetimeHint': 'Leer: die Vorgabe des Hubs (Einstellung {setting}).',
  'enrollment.uses': 'Erlaubte Registrierungen',
  'enrollment.usesHint': 'Leer: die Vorgabe des Hubs (Einstellung {setting}).',
  'enrollment.createdTitle': 'Token {name} erstellt',
  'enrollment.shownOnce':
    'Das Token wird nur dieses eine Mal angezeigt. Es erlaubt {uses, plural, one {# Registrierung} other {# Registrierungen}} bis {until}.',
  'enrollment.command': 'Registrierungsbefehl',
  'enrollment.runOwnCa':
    'Führen Sie ihn auf der Maschine aus (svc-agent installiert), dann {run}. {flag} pinnt die eigene CA des Hubs, sodass der Agent diesem Hub vertraut und keinem anderen.',
  'enrollment.runSystemCa':
    'Das Zertifikat dieses Hubs stammt nicht von seiner eigenen CA: Der Agent prüft es gegen die System-CAs der Maschine.',
  'enrollment.token': 'Token',
  'enrollment.done': 'Fertig',
  'enrollment.title': 'Registrierungs-Tokens',
  'enrollment.intro':
    'Eine Maschine tritt dem Hub einmal mit einem Token bei: {command} tauscht es gegen ihre eigenen Zugangsdaten. Tokens laufen ab und erlauben eine feste Anzahl von Registrierungen.',
  'enrollment.loading': 'Registrierungs-Tokens werden geladen',
  'enrollment.none': 'Keine Registrierungs-Tokens',
  'enrollment.noneText': 'Erstellen Sie eines, um eine Maschine mit einem Agenten hinzuzufügen.',
  'enrollment.stateHeader': 'Zustand',
  'enrollment.used': 'Verwendet',
  'enrollment.expires': 'Läuft ab',
  'enrollment.created': 'Erstellt',
  'enrollment.usedOf': '{uses} von {max}',
  'enrollment.revoke': 'Widerrufen',
  'enrollment.revokeNamed': '{name} widerrufen',
  'enrollment.revokeTitle': 'Token {name} widerrufen?',
  'enrollment.revokeToken': 'Token widerrufen',
  'enrollment.revokeText':
    'Keine Maschine kann sich mehr damit registrieren. Maschinen, die sich damit registriert haben, behalten ihre eigenen Zugangsdaten.',
};
