import type { AreaTranslation } from './en.js';
import type { discovery as english } from './discovery.en.js';

export const discovery: AreaTranslation<typeof english> = {
  'discovery.intro':
    'Contenedores y puertos a la escucha que informan los agentes, y hosts de un rango LAN cuando el escaneo LAN está activado en la configuración. Cada hallazgo espera aquí hasta que alguien lo acepte o lo descarte.',
  'discovery.run': 'Ejecutar el descubrimiento',
  'discovery.running': 'Descubriendo…',
  'discovery.cidr': 'CIDR de la LAN (opcional)',
  'discovery.portsOptional': 'Puertos (opcional)',
  'discovery.done':
    'Descubrimiento terminado: respondieron {answered} de {asked} agentes, {found, plural, one {# hallazgo} other {# hallazgos}}, {suggestions, plural, one {# sugerencia nueva} other {# sugerencias nuevas}}',
  'discovery.doneEnd': '{done}.',
  'discovery.doneLan':
    '{done}; LAN {cidr}: {hosts, plural, one {# host nuevo} other {# hosts nuevos}} en {probes, plural, one {# sondeo} other {# sondeos}}.',
  'discovery.stack': 'stack {name}',
  'discovery.ports': 'puertos {ports}',
  'discovery.on': 'en {address}',
  'discovery.tcp': 'TCP {ports}',
  'discovery.decided':
    '{outcome, select, added {{title}: aceptado, añadido como activo} accepted {{title}: aceptado} other {{title}: descartado}}',
  'discovery.acceptTitle': '¿Aceptar {title}?',
  'discovery.dismissTitle': '¿Descartar {title}?',
  'discovery.addAsAsset': 'Añadir como activo',
  'discovery.accept': 'Aceptar',
  'discovery.acceptNamed': 'Aceptar {title}',
  'discovery.dismiss': 'Descartar',
  'discovery.dismissNamed': 'Descartar {title}',
  'discovery.hostText':
    'El host pasa a ser un activo manual con esta dirección; más adelante se puede registrar un agente en él.',
  'discovery.assetName': 'Nombre del activo',
  'discovery.acceptText': 'Lo marca como conocido. Ya está en su activo; nada más cambia.',
  'discovery.dismissText': 'Las ejecuciones posteriores que lo vuelvan a encontrar lo dejan descartado.',
  'discovery.checkMade': '{name}: comprobación creada. {link}.',
  'discovery.seeChecks': 'Verla en la página de comprobaciones',
  'discovery.filters': 'Filtrar sugerencias',
  'discovery.status': 'Estado',
  'discovery.anyStatus': 'Cualquier estado',
  'discovery.statusValue':
    '{status, select, pending {pendiente} accepted {aceptada} dismissed {descartada} other {{status}}}',
  'discovery.kind': 'Tipo',
  'discovery.anyKind': 'Cualquier tipo',
  'discovery.kindValue':
    '{kind, select, container {Contenedor} port {Puerto a la escucha} host {Host de la LAN} other {{kind}}}',
  'discovery.loading': 'Cargando sugerencias',
  'discovery.none': 'No hay sugerencias',
  'discovery.noneText': 'Ejecuta el descubrimiento para preguntar a los agentes qué se ejecuta en sus hosts.',
  'discovery.suggestions': 'Sugerencias',
  'discovery.found': 'Encontrado',
  'discovery.details': 'Detalles',
  'discovery.lastSeen': 'Visto por última vez',
  'discovery.asset': 'activo',
  'discovery.watch': 'Vigilar',
  'discovery.watchNamed': 'Vigilar {title} con una comprobación',
};
