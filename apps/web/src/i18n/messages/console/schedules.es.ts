import type { AreaTranslation } from './en.js';
import type { schedules as english } from './schedules.en.js';

export const schedules: AreaTranslation<typeof english> = {
  'schedules.title': 'Programaciones',
  'schedules.new': 'Nueva programación',
  'schedules.inMaintenance':
    'hay activos en una ventana de mantenimiento: las programaciones marcadas para ella pueden ejecutarse',
  'schedules.loading': 'Cargando las programaciones',
  'schedules.none': 'Aún no hay programaciones',
  'schedules.noneText':
    'Una programación ejecuta por sí sola un comando o una acción guardada, en los momentos que indique.',
  'schedules.column':
    '{column, select, name {Nombre} when {Cuándo} runs {Ejecuta} next {Próxima ejecución} other {Última ejecución}}',
  'schedules.windowOnly': 'solo en una ventana',
  'schedules.windowOnlyTitle': 'Se ejecuta solo dentro de una ventana de mantenimiento',
  'schedules.savedAction': 'acción guardada {id}',
  'schedules.paused': 'en pausa',
  'schedules.noNextRun': 'ninguna',
  'schedules.history': 'Historial',
  'schedules.historyOf': 'Historial de {name}',
  'schedules.toggle': '{enabled, select, yes {Pausar} other {Reanudar}}',
  'schedules.toggleNamed': '{enabled, select, yes {Pausar} other {Reanudar}} {name}',
  'schedules.deleteTitle': '¿Eliminar {name}?',
  'schedules.deleteText': 'La programación se detiene y su historial de ejecuciones se elimina con ella.',
  'schedules.save': 'Guardar programación',
  'schedules.name': 'Nombre',
  'schedules.cron': 'Expresión cron',
  'schedules.cronHint': 'minuto hora día mes día-de-la-semana; un sexto campo al principio para los segundos',
  'schedules.timezone': 'Zona horaria',
  'schedules.onlyInWindow': 'Solo dentro de una ventana de mantenimiento (un momento fuera de ella se omite)',
  'schedules.runs': 'Ejecuta',
  'schedules.runsCommand': 'Un comando',
  'schedules.runsAction': 'Una acción guardada',
  'schedules.command': 'Comando',
  'schedules.action': 'Acción guardada',
  'schedules.chooseAction': 'Elija una acción',
  'schedules.actionTargets': 'En los destinos propios de la acción',
  'schedules.runsOf': 'Ejecuciones de {name}',
  'schedules.runsTable': 'Ejecuciones',
  'schedules.loadingRuns': 'Cargando las ejecuciones',
  'schedules.noRuns': 'Aún no hay ejecuciones',
  'schedules.runColumn': '{column, select, tick {Momento} status {Estado} targets {Destinos} other {Nota}}',
  'schedules.runStatus':
    '{status, select, running {en curso} completed {completada} missed {perdida} interrupted {interrumpida} failed {fallida} refused {rechazada} skipped {omitida} other {{status}}}',
  'schedules.missed': '{n, plural, one {# momento perdido} other {# momentos perdidos}}',
  'schedules.okOf': '{ok} correctos de {total}',
};
