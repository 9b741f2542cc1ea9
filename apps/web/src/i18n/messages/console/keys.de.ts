import type { AreaTranslation } from './en.js';
import type { keys as english } from './keys.en.js';

export const keys: AreaTranslation<typeof english> = {
  'keys.title': 'API-Schlüssel',
  'keys.create': 'Schlüssel erstellen',
  'keys.intro':
    'Schlüssel rufen die REST-API ({path}) mit einer Rolle, Scopes und optional einer Liste von Assets auf. Nur ihr Präfix wird im Klartext gespeichert.',
  'keys.loading': 'Schlüssel werden geladen',
  'keys.none': 'Keine API-Schlüssel',
  'keys.noneText': 'Erstellen Sie einen für ein Skript, eine CLI oder einen anderen Dienst.',
  'keys.column':
    '{column, select, name {Name} key {Schlüssel} role {Rolle} scopes {Scopes} assets {Assets} expires {Läuft ab} lastUsed {Zuletzt benutzt} other {Erstellt}}',
  'keys.everything': 'alles (*)',
  'keys.assetsAll': 'alle',
  'keys.assetsSome': '{n, plural, one {nur #} other {nur #}}',
  'keys.expired': 'abgelaufen',
  'keys.revoke': 'Widerrufen',
  'keys.revokeNamed': '{name} widerrufen',
  'keys.revokeTitle': 'Schlüssel {name} widerrufen?',
  'keys.revokeConfirm': 'Schlüssel widerrufen',
  'keys.revokeText':
    'Jede Anfrage mit {prefix} wird ab sofort abgelehnt, und seine Ereignis-Streams werden geschlossen. Das lässt sich nicht rückgängig machen.',
  'keys.createdTitle': 'Schlüssel {name} erstellt',
  'keys.copyNow':
    'Kopieren Sie den Schlüssel jetzt: Er wird nur dieses eine Mal angezeigt. Der Hub speichert nur seinen Hash und kann ihn nicht erneut anzeigen.',
  'keys.rawLabel': 'API-Schlüssel',
  'keys.sendAs': 'Senden Sie ihn als {header} über HTTPS.',
  'keys.copied': 'Ich habe ihn kopiert',
  'keys.editTitle': 'Schlüssel {name} bearbeiten',
  'keys.createTitle': 'API-Schlüssel erstellen',
  'keys.name': 'Name',
  'keys.fixedRole':
    'Rolle: {role}. Die Rolle eines Schlüssels lässt sich nicht ändern: Erstellen Sie für eine andere Rolle einen neuen Schlüssel.',
  'keys.role': 'Rolle',
  'keys.roleHint':
    'Was der Schlüssel höchstens darf; seine Scopes schränken das weiter ein. Ein Viewer-Schlüssel ändert nie etwas.',
  'keys.expires': 'Läuft ab',
  'keys.expiresHint': 'Leer: Der Schlüssel läuft nicht ab.',
  'keys.preset': '{days, select, 365 {1 Jahr} other {{days} Tage}}',
  'keys.never': 'Nie',
  'keys.nothingChanged': 'Nichts geändert.',
  'keys.scopes': 'Scopes',
  'keys.everythingScope': 'Alles ({star})',
  'keys.readOnly': 'Vorgabe: nur lesen',
  'keys.clear': 'Leeren',
  'keys.familyScopes': 'Scopes für {family}',
  'keys.allowedAssets': 'Erlaubte Assets',
  'keys.allAssets':
    'Alle Assets, auch später hinzugefügte. Fügen Sie Assets hinzu, um den Schlüssel auf sie zu beschränken.',
  'keys.chosenAssets': 'Gewählte Assets',
  'keys.findAsset': 'Asset suchen',
  'keys.findPlaceholder': 'Name, Hostname, Adresse',
  'keys.matching': 'Passende Assets',
  'keys.add': '{name} hinzufügen',
  'keys.noOtherMatch': 'Kein weiteres Asset passt zu „{query}“.',
};
