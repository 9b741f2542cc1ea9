import type { AreaTranslation } from './en.js';
import type { connectors as english } from './connectors.en.js';

export const connectors: AreaTranslation<typeof english> = {
  'connectors.count': '{n, plural, one {# Connector} other {# Connectors}}',
  'connectors.new': 'Neuer Connector',
  'connectors.add': 'Connector hinzufügen',
  'connectors.loading': 'Connectors werden geladen',
  'connectors.none': 'Noch keine Connectors',
  'connectors.noneText':
    'Ein Connector lässt den Hub Proxmox VE, Proxmox Backup Server und andere Verwaltungsebenen lesen und steuern.',
  'connectors.name': 'Name',
  'connectors.kind': 'Art',
  'connectors.url': 'URL',
  'connectors.certificate': 'Zertifikat',
  'connectors.healthColumn': 'Zustand',
  'connectors.health': '{health, select, ok {ok} error {Fehler} other {unbekannt}}',
  'connectors.assets': 'Assets',
  'connectors.lastError': 'Letzter Fehler',
  'connectors.lastChecked': 'Zuletzt geprüft',
  'connectors.disabled': '(deaktiviert)',
  'connectors.insecureTitle': 'Das Zertifikat der Gegenstelle wird nicht geprüft',
  'connectors.insecureBadge': 'Unsicher: nicht geprüft',
  'connectors.tlsMode':
    '{mode, select, system {CA-Speicher des Systems} pinned_ca {Festgelegtes CA-Zertifikat} fingerprint {Zertifikat-Fingerabdruck (SHA-256)} other {Prüfung überspringen (unsicher)}}',
  'connectors.check': 'Jetzt prüfen',
  'connectors.checkNamed': '{name} jetzt prüfen',
  'connectors.checking': 'Wird geprüft…',
  'connectors.checkOk': '{n, plural, one {OK, # Asset} other {OK, # Assets}}',
  'connectors.checkFailed': 'Fehlgeschlagen: {error}',
  'connectors.removeTitle': '{name} entfernen?',
  'connectors.remove': 'Connector entfernen',
  'connectors.removeText':
    '{n, plural, one {Das # Asset, das er gebracht hat, wird mit entfernt.} other {Die # Assets, die er gebracht hat, werden mit entfernt.}}',
  'connectors.baseUrl': 'Basis-URL',
  'connectors.baseUrlHint': 'Schema, Host und Port, z. B. {example}',
  'connectors.credentials': 'Zugangsdaten',
  'connectors.credentialsKept': 'Leer lassen, um die gespeicherten Zugangsdaten zu behalten (nie angezeigt).',
  'connectors.credentialsHint':
    '{kind, select, virt {API-Token als USER@REALM!TOKENID=SECRET} backup {API-Token als USER@REALM!TOKENID:SECRET (ein Doppelpunkt vor dem Geheimnis)} nas {API-Schlüssel} stacks {API-Schlüssel (ptr_…)} other {Langlebiges Zugriffstoken}}',
  'connectors.username': 'Benutzername',
  'connectors.tlsCheck': 'Zertifikatsprüfung',
  'connectors.insecureWarning':
    'Der Hub prüft nicht, wer antwortet: Jeder auf dem Weg kann die Zugangsdaten lesen.',
  'connectors.caPem': 'CA-Zertifikat (PEM)',
  'connectors.fingerprint': 'SHA-256-Fingerabdruck',
  'connectors.enabled': 'Aktiviert',
};
