import type { AreaTranslation } from './en.js';
import type { updates as english } from './updates.en.js';

export const updates: AreaTranslation<typeof english> = {
  'updates.title': 'Actualizaciones',
  'updates.sections': 'Secciones de actualizaciones',
  'updates.tab': '{tab, select, machines {Máquinas} runs {Ejecuciones} other {Nueva ejecución}}',
  'updates.machineCount': '{n, plural, one {# máquina} other {# máquinas}}',
  'updates.runCount': '{n, plural, one {# ejecución} other {# ejecuciones}}',
  'updates.newRun': 'Nueva ejecución de actualizaciones',
  'updates.notSupported': 'no compatible',
  'updates.notReported': 'aún sin informe',
  'updates.filters': 'Filtrar máquinas',
  'updates.show': 'Mostrar',
  'updates.allMachines': 'Todas las máquinas',
  'updates.need':
    '{need, select, needs {Necesitan actualizaciones} other {Necesitan actualizaciones de seguridad}}',
  'updates.group': 'Grupo',
  'updates.anyGroup': 'Cualquier grupo',
  'updates.refreshed':
    '{name} informó de {n, plural, =0 {ninguna actualización} one {# actualización} other {# actualizaciones}}.',
  'updates.loadingFleet': 'Cargando las actualizaciones de las máquinas',
  'updates.noMachines': 'No hay máquinas aquí',
  'updates.noMachinesText':
    'Las máquinas cuyo agente tiene un gestor de paquetes informan de sus actualizaciones disponibles cada pocas horas.',
  'updates.fleetTable': 'Máquinas y sus actualizaciones',
  'updates.fleetColumn':
    '{column, select, machine {Máquina} updates {Actualizaciones} security {Seguridad} reboot {Reinicio} patched {Último parche} other {Última comprobación}}',
  'updates.reboot': '{required, select, yes {Necesario} other {No}}',
  'updates.checkFailed': 'falló: {error}',
  'updates.refreshNamed': 'Actualizar el informe de {name}',
  'updates.refresh': 'Actualizar',
  'updates.runFilters': 'Filtrar las ejecuciones de actualizaciones',
  'updates.status': 'Estado',
  'updates.anyStatus': 'Cualquier estado',
  'updates.runStatus':
    '{status, select, scheduled {programada} running {en curso} completed {completada} stopped {detenida} cancelled {cancelada} failed {fallida} other {{status}}}',
  'updates.modeLabel': 'Modo',
  'updates.anyMode': 'Simulaciones e instalaciones',
  'updates.mode': '{mode, select, dry_run {Simulación} other {Instalación}}',
  'updates.loadingRuns': 'Cargando las ejecuciones de actualizaciones',
  'updates.noRuns': 'No hay ejecuciones de actualizaciones',
  'updates.noRunsText':
    'Una simulación pregunta al gestor de paquetes de cada máquina qué cambiaría; una instalación instala.',
  'updates.runsTable': 'Ejecuciones de actualizaciones',
  'updates.runsColumn':
    '{column, select, run {Ejecución} updates {Actualizaciones} targets {Destinos} status {Estado} results {Resultados} other {Inicio}}',
  'updates.selection':
    '{selection, select, all {todas las actualizaciones} security {solo seguridad} other {paquetes indicados}}',
  'updates.selectionOption':
    '{selection, select, all {Todas las actualizaciones} security {Solo seguridad} other {Paquetes indicados}}',
  'updates.targets':
    '{group, select, yes {un grupo} other {{n, plural, one {# máquina} other {# máquinas}}}}',
  'updates.count':
    '{n} {status, select, ok {correctas} failed {fallidas} offline {sin conexión} running {en curso} pending {pendientes} skipped {omitidas} other {canceladas}}',
  'updates.countsOf': '{counts} de {total}',
  'updates.countsNone': '{total, plural, one {# destino} other {# destinos}}',
  'updates.submit':
    '{start, select, now {{mode, select, apply {Instalar actualizaciones} other {Iniciar simulación}}} other {{mode, select, apply {Programar la instalación} other {Programar la simulación}}}}',
  'updates.modeOption':
    '{mode, select, dry_run {Simulación (el gestor simula)} other {Instalación (instala)}}',
  'updates.selectionLegend': 'Actualizaciones',
  'updates.packages': 'Paquetes',
  'updates.packagesHint': 'Nombres separados por espacios, comas o líneas',
  'updates.refreshFirst': 'Actualizar primero las listas de paquetes',
  'updates.rebootAfter': 'Reiniciar después una máquina que lo necesite',
  'updates.concurrency': 'Como máximo a la vez',
  'updates.maxFailures': 'Detener tras fallos',
  'updates.maxFailuresHint': 'Vacío: sin límite',
  'updates.timeout': 'Tiempo límite por máquina (minutos)',
  'updates.startLegend': 'Inicio',
  'updates.startOption':
    '{start, select, now {Ahora} at {A una hora} other {En la próxima ventana de mantenimiento}}',
  'updates.startsAt': 'Empieza a las',
  'updates.viewerNotice':
    'Su rol puede ver las actualizaciones de la flota, pero no iniciar ejecuciones de actualizaciones.',
  'updates.changeColumn': '{column, select, name {Paquete} action {Cambio} other {Versiones}}',
  'updates.changeAction':
    '{action, select, install {instalar} upgrade {actualizar} downgrade {bajar de versión} remove {eliminar} held {retenido} other {{action}}}',
  'updates.changesOn': '{dry, select, yes {Cambios previstos} other {Cambios}} en {name}',
  'updates.nothing': '{dry, select, yes {Nada que cambiar} other {Nada cambiado}}',
  'updates.moreChanges': 'más cambios de los que el hub guarda',
  'updates.outputOf': '{manager, select, none {Salida del gestor de paquetes} other {Salida de {manager}}}',
  'updates.outputOn': 'Salida en {name}',
  'updates.outputEnd': 'solo se guarda el final de la salida',
  'updates.loadingResult': 'Cargando el resultado',
  'updates.targetStatus':
    '{status, select, pending {pendiente} running {en curso…} ok {correcto} failed {fallido} offline {sin conexión} skipped {omitido} other {cancelado}}',
  'updates.changes': '{n} {dry, select, yes {previstos} other {cambiados}}',
  'updates.exitCode': 'código de salida {code}',
  'updates.timedOut': 'tiempo agotado',
  'updates.rebootRequired': 'reinicio necesario',
  'updates.rebooting': 'reiniciando',
  'updates.updatesOf': 'Actualizaciones de {name}',
  'updates.waiting': 'Esperando al agente…',
  'updates.notRun': 'No ejecutado.',
  'updates.facts': 'La ejecución',
  'updates.fact':
    '{fact, select, status {Estado} results {Resultados} updates {Actualizaciones} concurrency {A la vez} reboot {Reiniciar si es necesario} window {En la ventana de mantenimiento desde} starts {Inicio} finished {Terminada} other {Por}}',
  'updates.stopsAfter': ', se detiene tras {n, plural, one {# fallo} other {# fallos}}',
  'updates.yesNo': '{value, select, yes {sí} other {no}}',
  'updates.until': 'hasta {time}',
  'updates.loadingRun': 'Cargando la ejecución de actualizaciones',
  'updates.runTitle':
    '{mode, select, dry_run {Simulación} other {Instalación}} de {selection, select, all {todas las actualizaciones} security {solo seguridad} other {paquetes indicados}}',
  'updates.cancelRun': 'Cancelar ejecución',
  'updates.targetsHeading': 'Destinos',
  'updates.resolvedAtStart': 'Los destinos se determinan cuando empieza la ejecución.',
  'updates.noTargets': 'Sin destinos.',
  'updates.cancelTitle': '¿Cancelar esta ejecución de actualizaciones?',
  'updates.cancelText':
    'No empieza ninguna máquina más; las que aún no empezaron se cancelan. Un gestor de paquetes que ya trabaja termina, y su resultado se conserva.',
  'updates.packageColumn':
    '{column, select, name {Paquete} current {Instalado} new {Disponible} source {Origen} other {Seguridad}}',
  'updates.securityChip': 'seguridad',
  'updates.checking': 'Comprobando…',
  'updates.checkNow': 'Comprobar ahora',
  'updates.moreOptions': 'Más opciones',
  'updates.statusFacts': 'Estado de las actualizaciones',
  'updates.assetFact':
    '{fact, select, available {Actualizaciones disponibles} security {Actualizaciones de seguridad} reboot {Reinicio} patched {Último parche} checked {Última comprobación} other {Gestor de paquetes}}',
  'updates.rebootState': '{required, select, yes {Necesario} other {No necesario}}',
  'updates.noManager': 'ninguno que el hub pueda controlar',
  'updates.lastCheckFailed': 'La última comprobación falló: {error}',
  'updates.available': 'Actualizaciones disponibles',
  'updates.loadingAvailable': 'Cargando las actualizaciones disponibles',
  'updates.notReportedYet': 'Aún sin informe',
  'updates.upToDate': 'Al día',
  'updates.noManagerHere': 'No hay en esta máquina ningún gestor de paquetes que el hub pueda controlar',
  'updates.applyTitle': '¿Instalar todas las actualizaciones en {name}?',
  'updates.applyText':
    'El gestor de paquetes instala ahora {known, select, yes {{n, plural, one {# actualización} other {# actualizaciones}}} other {las actualizaciones disponibles}}. La máquina no se reinicia.',
};
