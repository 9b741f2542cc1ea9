import type { AreaTranslation } from './en.js';
import type { settings as english } from './settings.en.js';

export const settings: AreaTranslation<typeof english> = {
  'settings.title': 'Ajustes',
  'settings.loading': 'Cargando los ajustes',
  'settings.intro':
    'Un valor fijado aquí prevalece sobre el entorno, que prevalece sobre el valor predeterminado. Las políticas se aplican al momento; los ajustes leídos al inicio esperan un reinicio.',
  'settings.domain':
    '{domain, select, enrollment {Registro} connectors {Conectores} retention {Retención} runtime {Ejecución y políticas} notifications {Notificaciones} other {{domain}}}',
  'settings.domainLower':
    '{domain, select, enrollment {registro} connectors {conectores} retention {retención} runtime {ejecución y políticas} notifications {notificaciones} other {{domain}}}',
  'settings.domainAbout':
    '{domain, select, enrollment {Arranque de agentes: valores predeterminados de los nuevos tokens de registro.} connectors {Comportamiento de los recolectores: valores predeterminados de descubrimiento de servicios enviados a los agentes al conectarse.} retention {Cuánto tiempo se conserva el historial.} runtime {Comportamiento predeterminado, interruptores de políticas y límites de frecuencia.} notifications {Enrutamiento y escalado de alertas.} other {{domain}}}',
  'settings.domainForm': 'Ajustes: {domain}',
  'settings.editDomain': 'Editar los ajustes de {domain}',
  'settings.saveDomain': 'Guardar {domain}',
  'settings.column': '{column, select, setting {Ajuste} value {Valor} other {Origen}}',
  'settings.source': '{source, select, api {API} env {entorno} other {predeterminado}}',
  'settings.envVar': 'variable de entorno {name}',
  'settings.switch': '{on, select, yes {sí} other {no}}',
  'settings.hint':
    'Predeterminado: {value}{env, select, none {} other {, entorno {env}}}{restart, select, yes {; se aplica al reiniciar} other {}}.',
  'settings.clear':
    'Borrar el valor de la API (se aplica {env, select, yes {el entorno o el predeterminado} other {el predeterminado}})',
  'settings.restartToApply': 'reiniciar para aplicar',
  'settings.restartToApplyTitle': 'Se lee al inicio: un cambio se aplica tras un reinicio',
  'settings.waitsRestart': 'espera un reinicio',
  'settings.saved': 'Guardado: {changed}.',
  'settings.savedNothing': 'Guardado sin cambios.',
  'settings.appliesAfterRestart': '{keys} {n, plural, one {se aplica} other {se aplican}} tras un reinicio.',
  'settings.restart': 'Reinicio',
  'settings.pending': '{n, plural, one {Un ajuste espera} other {# ajustes esperan}} un reinicio: {keys}.',
  'settings.noPending': 'Ningún ajuste espera un reinicio.',
  'settings.restarting': 'El hub se está reiniciando; esperando a que responda…',
  'settings.back': 'El hub se reinició y vuelve a responder.',
  'settings.restartHub': 'Reiniciar el hub',
  'settings.restartTitle': '¿Reiniciar el hub?',
  'settings.restartNow': 'Reiniciar ahora',
  'settings.restartText':
    'El hub deja de dar servicio unos segundos: los agentes se reconectan, los comandos en curso se cortan y los ajustes leídos al inicio toman sus nuevos valores.',
  'settings.noAnswer':
    'El hub no volvió a responder en {seconds} s. Revise su registro y vuelva a cargar la página.',
};
