import type { AreaTranslation } from './en.js';
import type { bulk as english } from './bulk.en.js';

export const bulk: AreaTranslation<typeof english> = {
  'bulk.title': 'Servicio en cada miembro',
  'bulk.service': 'Servicio',
  'bulk.action': 'Acción',
  'bulk.actionName': '{action, select, start {iniciar} stop {detener} other {reiniciar}}',
  'bulk.sending': 'Enviando…',
  'bulk.apply': 'Aplicar al grupo',
  'bulk.summary':
    '{total, plural, one {# destino} other {# destinos}}: {ok} correctos, {offline} fuera de línea, {error} con error',
  'bulk.results': 'Resultados del servicio',
  'bulk.asset': 'Activo',
  'bulk.result': 'Resultado',
  'bulk.stateOrReason': 'Estado o motivo',
  'bulk.status': '{status, select, ok {correcto} offline {fuera de línea} other {error}}',
};
