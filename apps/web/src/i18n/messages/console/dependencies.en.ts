/** The dependencies page: the graph and the declared links (features/dependencies; its blast radius panel is in the entry’s `blast.*`). */
export const dependencies = {
  'dependencies.count':
    '{assets, plural, one {# asset} other {# assets}}, {links, plural, one {# link} other {# links}}',
  'dependencies.loading': 'Loading the graph',
  'dependencies.none': 'No assets yet',
  'dependencies.noneText':
    'Assets and the links between them appear here: hypervisors and guests, storage, backups.',
  'dependencies.whatBreaks': 'What breaks if this goes down',
  'dependencies.noAsset': 'no asset',
  'dependencies.blastOf': '{name}: {radius}',
  'dependencies.graphRegion': 'Dependency graph, scrollable',
  'dependencies.graphLabel':
    'Dependency graph: {assets, plural, one {# asset} other {# assets}}, {links, plural, one {# link} other {# links}}',
  'dependencies.column':
    '{column, select, backup {Backup} hypervisors {Hypervisors} guests {Guests} storage {Storage} containers {Containers} other {Hosts and others}}',
  'dependencies.edgeType':
    '{type, select, hosts {hosts} runs {runs} stores {stores} backs_up {backs up} declared {declared} other {{type}}}',
  'dependencies.edge':
    '{from} {type, select, hosts {hosts} runs {runs} stores {stores} backs_up {backs up} declared {depends on} other {{type}}} {to}',
  'dependencies.edgeLabelled':
    '{from} {type, select, hosts {hosts} runs {runs} stores {stores} backs_up {backs up} declared {depends on} other {{type}}} {to} ({label})',
  'dependencies.legend': 'Legend',
  'dependencies.declared': 'Declared links',
  'dependencies.noDeclared': 'None yet.',
  'dependencies.dependsOn': '{from} depends on {to}',
  'dependencies.removeLink': 'Remove link {from} to {to}',
  'dependencies.declare': 'Declare a link',
  'dependencies.depends': 'Depends',
  'dependencies.on': 'on',
  'dependencies.choose': 'choose…',
  'dependencies.label': 'Label',
  'dependencies.addLink': 'Add link',
};
