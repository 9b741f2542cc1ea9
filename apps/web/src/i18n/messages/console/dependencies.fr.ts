import type { AreaTranslation } from './en.js';
import type { dependencies as english } from './dependencies.en.js';

export const dependencies: AreaTranslation<typeof english> = {
  'dependencies.count':
    '{assets, plural, one {# actif} other {# actifs}}, {links, plural, one {# lien} other {# liens}}',
  'dependencies.loading': 'Chargement du graphe',
  'dependencies.none': 'Aucun actif pour l’instant',
  'dependencies.noneText':
    'Les actifs et leurs liens apparaissent ici : hyperviseurs et invités, stockage, sauvegardes.',
  'dependencies.whatBreaks': 'Ce qui tombe si ceci tombe',
  'dependencies.noAsset': 'aucun actif',
  'dependencies.blastOf': '{name} : {radius}',
  'dependencies.graphRegion': 'Graphe des dépendances, défilant',
  'dependencies.graphLabel':
    'Graphe des dépendances : {assets, plural, one {# actif} other {# actifs}}, {links, plural, one {# lien} other {# liens}}',
  'dependencies.column':
    '{column, select, backup {Sauvegarde} hypervisors {Hyperviseurs} guests {Invités} storage {Stockage} containers {Conteneurs} other {Hôtes et autres}}',
  'dependencies.edgeType':
    '{type, select, hosts {héberge} runs {exécute} stores {stocke} backs_up {sauvegarde} declared {déclaré} other {{type}}}',
  'dependencies.edge':
    '{from} {type, select, hosts {héberge} runs {exécute} stores {stocke} backs_up {sauvegarde} declared {dépend de} other {{type}}} {to}',
  'dependencies.edgeLabelled':
    '{from} {type, select, hosts {héberge} runs {exécute} stores {stocke} backs_up {sauvegarde} declared {dépend de} other {{type}}} {to} ({label})',
  'dependencies.legend': 'Légende',
  'dependencies.declared': 'Liens déclarés',
  'dependencies.noDeclared': 'Aucun pour l’instant.',
  'dependencies.dependsOn': '{from} dépend de {to}',
  'dependencies.removeLink': 'Retirer le lien de {from} vers {to}',
  'dependencies.declare': 'Déclarer un lien',
  'dependencies.depends': 'Dépend',
  'dependencies.on': 'de',
  'dependencies.choose': 'choisir…',
  'dependencies.label': 'Libellé',
  'dependencies.addLink': 'Ajouter le lien',
};
