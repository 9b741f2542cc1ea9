import type { AreaTranslation } from './en.js';
import type { run as english } from './run.en.js';

export const run: AreaTranslation<typeof english> = {
  'run.title': 'Befehl ausführen',
  'run.viewerNotice': 'Ihre Rolle darf die Flotte lesen, aber keine Befehle darauf ausführen.',
  'run.noGroups': 'Noch keine Gruppen: {link}.',
  'run.makeGroup': 'eine anlegen',
  'run.command': 'Befehl',
  'run.timeout': 'Zeitlimit (Sekunden, 1 bis {max})',
  'run.run': 'Ausführen',
  'run.running': 'Läuft…',
  'run.stopWaiting': 'Nicht mehr warten',
  'run.stopNote':
    'Das Warten zu beenden stoppt keine bereits gesendeten Befehle: Sie laufen auf den Agents bis zu ihrem Ende.',
  'run.streamBroken': '{message}: Die Ergebnisse unten sind das, was angekommen ist.',
  'run.results': 'Ergebnisse',
  'run.targets': '{n, plural, one {# Ziel} other {# Ziele}}',
  'run.statusCount':
    '{n} {status, select, ok {OK} timeout {Zeitüberschreitung} offline {offline} other {Fehler}}',
  'run.summary': '{targets}: {counts}',
  'run.summaryRunning': '{summary}; {n} laufen',
  'run.status':
    '{status, select, ok {OK} timeout {Zeitüberschreitung} offline {offline} error {Fehler} other {läuft…}}',
  'run.exitCode': 'Exit-Code {code}',
  'run.waiting': 'Warten auf den Agent…',
  'run.truncated': 'Ausgabe gekürzt',
  'run.truncatedTitle': 'Die Ausgabe war länger, als der Hub aufbewahrt',
  'run.leftRunning':
    'Der Befehl hat {n, plural, one {# Prozess} other {# Prozesse}} laufen lassen; der Agent {killed, select, yes {hat sie beendet} other {konnte nicht alle beenden}}.',
  'run.noOutput': 'Keine Ausgabe.',
};
