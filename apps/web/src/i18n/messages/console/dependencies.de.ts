import type { AreaTranslation } from './en.js';
import type { dependencies as english } from './dependencies.en.js';

export const dependencies: AreaTranslation<typeof english> = {
  'dependencies.count':
    '{assets, plural, one {# Asset} other {# Assets}}, {links, plural, one {# Verbindung} other {# Verbindungen}}',
  'dependencies.loading': 'Graph wird geladen',
  'dependencies.none': 'Noch keine Assets',
  'dependencies.noneText':
    'Assets und ihre Verbindungen erscheinen hier: Hypervisoren und Gäste, Speicher, Backups.',
  'dependencies.whatBreaks': 'Was ausfällt, wenn dies ausfällt',
  'dependencies.noAsset': 'kein Asset',
  'dependencies.blastOf': '{name}: {radius}',
  'dependencies.graphRegion': 'Abhängigkeitsgraph, scrollbar',
  'dependencies.graphLabel':
    'Abhängigkeitsgraph: {assets, plural, one {# Asset} other {# Assets}}, {links, plural, one {# Verbindung} other {# Verbindungen}}',
  'dependencies.column':
    '{column, select, backup {Backup} hypervisors {Hypervisoren} guests {Gäste} storage {Speicher} containers {Container} other {Hosts und andere}}',
  'dependencies.edgeType':
    '{type, select, hosts {beherbergt} runs {betreibt} stores {speichert} backs_up {sichert} declared {angegeben} other {{type}}}',
  'dependencies.edge':
    '{from} {type, select, hosts {beherbergt} runs {betreibt} stores {speichert} backs_up {sichert} declared {hängt ab von} other {{type}}} {to}',
  'dependencies.edgeLabelled':
    '{from} {type, select, hosts {beherbergt} runs {betreibt} stores {speichert} backs_up {sichert} declared {hängt ab von} other {{type}}} {to} ({label})',
  'dependencies.legend': 'Legende',
  'dependencies.declared': 'Angegebene Verbindungen',
  'dependencies.noDeclared': 'Noch keine.',
  'dependencies.dependsOn': '{from} hängt ab von {to}',
  'dependencies.removeLink': 'Verbindung {from} zu {to} entfernen',
  'dependencies.declare': 'Verbindung angeben',
  'dependencies.depends': 'Hängt ab',
  'dependencies.on': 'von',
  'dependencies.choose': 'wählen…',
  'dependencies.label': 'Bezeichnung',
  'dependencies.addLink': 'Verbindung hinzufügen',
};
