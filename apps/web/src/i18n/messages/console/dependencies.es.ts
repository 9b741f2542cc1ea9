import type { AreaTranslation } from './en.js';
import type { dependencies as english } from './dependencies.en.js';

export const dependencies: AreaTranslation<typeof english> = {
  'dependencies.count':
    '{assets, plural, one {# activo} other {# activos}}, {links, plural, one {# vínculo} other {# vínculos}}',
  'dependencies.loading': 'Cargando el grafo',
  'dependencies.none': 'Aún no hay activos',
  'dependencies.noneText':
    'Aquí aparecen los activos y los vínculos entre ellos: hipervisores e invitados, almacenamiento, copias de seguridad.',
  'dependencies.whatBreaks': 'Qué se rompe si esto cae',
  'dependencies.noAsset': 'ningún activo',
  'dependencies.blastOf': '{name}: {radius}',
  'dependencies.graphRegion': 'Grafo de dependencias, desplazable',
  'dependencies.graphLabel':
    'Grafo de dependencias: {assets, plural, one {# activo} other {# activos}}, {links, plural, one {# vínculo} other {# vínculos}}',
  'dependencies.column':
    '{column, select, backup {Copias de seguridad} hypervisors {Hipervisores} guests {Invitados} storage {Almacenamiento} containers {Contenedores} other {Hosts y otros}}',
  'dependencies.edgeType':
    '{type, select, hosts {aloja} runs {ejecuta} stores {almacena} backs_up {respalda} declared {declarado} other {{type}}}',
  'dependencies.edge':
    '{from} {type, select, hosts {aloja} runs {ejecuta} stores {almacena} backs_up {respalda} declared {depende de} other {{type}}} {to}',
  'dependencies.edgeLabelled':
    '{from} {type, select, hosts {aloja} runs {ejecuta} stores {almacena} backs_up {respalda} declared {depende de} other {{type}}} {to} ({label})',
  'dependencies.legend': 'Leyenda',
  'dependencies.declared': 'Vínculos declarados',
  'dependencies.noDeclared': 'Ninguno todavía.',
  'dependencies.dependsOn': '{from} depende de {to}',
  'dependencies.removeLink': 'Quitar el vínculo de {from} a {to}',
  'dependencies.declare': 'Declarar un vínculo',
  'dependencies.depends': 'Depende',
  'dependencies.on': 'de',
  'dependencies.choose': 'elegir…',
  'dependencies.label': 'Etiqueta',
  'dependencies.addLink': 'Añadir vínculo',
};
