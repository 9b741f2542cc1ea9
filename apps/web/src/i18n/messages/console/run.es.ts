import type { AreaTranslation } from './en.js';
import type { run as english } from './run.en.js';

export const run: AreaTranslation<typeof english> = {
  'run.title': 'Ejecutar un comando',
  'run.viewerNotice': 'Su rol puede consultar la flota, pero no ejecutar comandos en ella.',
  'run.noGroups': 'Aún no hay grupos: {link}.',
  'run.makeGroup': 'cree uno',
  'run.command': 'Comando',
  'run.timeout': 'Tiempo límite (segundos, de 1 a {max})',
  'run.run': 'Ejecutar',
  'run.running': 'Ejecutando…',
  'run.stopWaiting': 'Dejar de esperar',
  'run.stopNote':
    'Dejar de esperar no detiene los comandos ya enviados: se ejecutan hasta el final en los agentes.',
  'run.streamBroken': '{message}: los resultados de abajo son los que llegaron.',
  'run.results': 'Resultados',
  'run.targets': '{n, plural, one {# destino} other {# destinos}}',
  'run.statusCount':
    '{n} {status, select, ok {correctos} timeout {con tiempo agotado} offline {sin conexión} other {con error}}',
  'run.summary': '{targets}: {counts}',
  'run.summaryRunning': '{summary}; {n} en curso',
  'run.status':
    '{status, select, ok {correcto} timeout {tiempo agotado} offline {sin conexión} error {error} other {en curso…}}',
  'run.exitCode': 'código de salida {code}',
  'run.waiting': 'Esperando al agente…',
  'run.truncated': 'salida truncada',
  'run.truncatedTitle': 'La salida era más larga de lo que el hub guarda',
  'run.leftRunning':
    'El comando dejó {n, plural, one {# proceso} other {# procesos}} en ejecución; el agente {killed, select, yes {los terminó} other {no pudo terminarlos todos}}.',
  'run.noOutput': 'Sin salida.',
};
