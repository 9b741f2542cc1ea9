import type { AreaTranslation } from './en.js';
import type { metrics as english } from './metrics.en.js';

export const metrics: AreaTranslation<typeof english> = {
  'metrics.range': 'Intervalo de tiempo',
  'metrics.rangeName': '{range, select, 1h {1 hora} 6h {6 horas} 24h {24 horas} 7d {7 días} other {30 días}}',
  'metrics.fetching': 'Cargando…',
  'metrics.samples': '{count, plural, one {# muestra} other {# muestras}}',
  'metrics.samplesLive': '{count, plural, one {# muestra} other {# muestras}}, actualizado cada 30 s',
  'metrics.samplesBucketed':
    '{count, plural, one {# muestra} other {# muestras}} en {buckets, plural, one {# intervalo} other {# intervalos}} (mín., máx. y media)',
  'metrics.loading': 'Cargando las métricas',
  'metrics.truncated':
    'Este intervalo tiene más muestras de las que la consola obtiene de una vez: el gráfico termina antes de ahora. Elige un intervalo más corto para ver lo último.',
  'metrics.none': 'Sin muestras en este intervalo ({range})',
  'metrics.agentSends': 'El agente envía muestras mientras está conectado.',
  'metrics.noAgent': 'Las métricas vienen de un agente; este dispositivo no tiene ninguno.',
  'metrics.chart': '{chart, select, cpu {CPU} memory {Memoria} disk {Disco} load {Carga} other {Red}}',
  'metrics.line':
    '{line, select, cpu {CPU} memory {Memoria usada} disk {Disco usado} load {Carga (1 min)} rx {Recibido} other {Enviado}}',
  'metrics.unit': '{unit, select, percent {%} used {% usado} load {carga (1 min)} other {bytes/s}}',
};
