import type { AreaTranslation } from './en.js';
import type { discovery as english } from './discovery.en.js';

export const discovery: AreaTranslation<typeof english> = {
  'discovery.intro':
    'Container und offene Ports, die die Agenten melden, und Hosts in einem LAN-Bereich, wenn der LAN-Scan in den Einstellungen aktiviert ist. Jeder Fund wartet hier, bis jemand ihn annimmt oder verwirft.',
  'discovery.run': 'Erkennung starten',
  'discovery.running': 'Erkennung läuft…',
  'discovery.cidr': 'LAN-CIDR (optional)',
  'discovery.portsOptional': 'Ports (optional)',
  'discovery.done':
    'Erkennung abgeschlossen: {answered} von {asked} Agenten haben geantwortet, {found, plural, one {# Fund} other {# Funde}}, {suggestions, plural, one {# neuer Vorschlag} other {# neue Vorschläge}}',
  'discovery.doneEnd': '{done}.',
  'discovery.doneLan':
    '{done}; LAN {cidr}: {hosts, plural, one {# neuer Host} other {# neue Hosts}} in {probes, plural, one {# Prüfung} other {# Prüfungen}}.',
  'discovery.stack': 'Stack {name}',
  'discovery.ports': 'Ports {ports}',
  'discovery.on': 'auf {address}',
  'discovery.tcp': 'TCP {ports}',
  'discovery.decided':
    '{outcome, select, added {{title}: angenommen, als Asset hinzugefügt} accepted {{title}: angenommen} other {{title}: verworfen}}',
  'discovery.acceptTitle': '{title} annehmen?',
  'discovery.dismissTitle': '{title} verwerfen?',
  'discovery.addAsAsset': 'Als Asset hinzufügen',
  'discovery.accept': 'Annehmen',
  'discovery.acceptNamed': '{title} annehmen',
  'discovery.dismiss': 'Verwerfen',
  'discovery.dismissNamed': '{title} verwerfen',
  'discovery.hostText':
    'Der Host wird ein manuelles Asset mit dieser Adresse; ein Agent kann später darauf registriert werden.',
  'discovery.assetName': 'Name des Assets',
  'discovery.acceptText':
    'Markiert es als bekannt. Es gehört bereits zu seinem Asset; sonst ändert sich nichts.',
  'discovery.dismissText': 'Spätere Durchläufe, die es erneut finden, lassen es verworfen.',
  'discovery.checkMade': '{name}: Prüfung angelegt. {link}.',
  'discovery.seeChecks': 'Auf der Seite „Prüfungen“ ansehen',
  'discovery.filters': 'Vorschläge filtern',
  'discovery.status': 'Status',
  'discovery.anyStatus': 'Jeder Status',
  'discovery.statusValue':
    '{status, select, pending {offen} accepted {angenommen} dismissed {verworfen} other {{status}}}',
  'discovery.kind': 'Art',
  'discovery.anyKind': 'Jede Art',
  'discovery.kindValue':
    '{kind, select, container {Container} port {Offener Port} host {LAN-Host} other {{kind}}}',
  'discovery.loading': 'Vorschläge werden geladen',
  'discovery.none': 'Keine Vorschläge',
  'discovery.noneText': 'Starten Sie die Erkennung, um die Agenten zu fragen, was auf ihren Hosts läuft.',
  'discovery.suggestions': 'Vorschläge',
  'discovery.found': 'Gefunden',
  'discovery.details': 'Details',
  'discovery.lastSeen': 'Zuletzt gesehen',
  'discovery.asset': 'Asset',
  'discovery.watch': 'Überwachen',
  'discovery.watchNamed': '{title} mit einer Prüfung überwachen',
};
