import type { AreaTranslation } from './en.js';
import type { actions as english } from './actions.en.js';

export const actions: AreaTranslation<typeof english> = {
  'actions.title': 'Acciones guardadas',
  'actions.new': 'Nueva acción',
  'actions.newTitle': 'Nueva acción guardada',
  'actions.save': 'Guardar acción',
  'actions.name': 'Nombre',
  'actions.command': 'Comando',
  'actions.runsOn': 'Se ejecuta en',
  'actions.created': 'Creada',
  'actions.onGroup': 'grupo {name}',
  'actions.onAssets': '{n, plural, one {# activo} other {# activos}}',
  'actions.loading': 'Cargando las acciones guardadas',
  'actions.none': 'Aún no hay acciones guardadas',
  'actions.noneText':
    'Una acción guardada conserva un comando y dónde se ejecuta, para volver a ejecutarlo con un clic.',
  'actions.run': 'Ejecutar',
  'actions.runNamed': 'Ejecutar {name}',
  'actions.running': 'Ejecutando…',
  'actions.resultsOf': 'Resultados de {name}',
  'actions.deleteTitle': '¿Eliminar {name}?',
  'actions.deleteText': 'La acción se elimina; lo que ejecutó antes permanece en el registro de auditoría.',
};
