import type { AreaTranslation } from './en.js';
import type { homeauto as english } from './homeauto.en.js';

export const homeauto: AreaTranslation<typeof english> = {
  'homeauto.action':
    '{verb, select, turnOff {Apagar} turnOn {Encender} run {Ejecutar} press {Pulsar} unlock {Desbloquear} lock {Bloquear} close {Cerrar} other {Abrir}}',
  'homeauto.actionNamed':
    '{verb, select, turnOff {Apagar {name}} turnOn {Encender {name}} run {Ejecutar {name}} press {Pulsar {name}} unlock {Desbloquear {name}} lock {Bloquear {name}} close {Cerrar {name}} other {Abrir {name}}}',
  'homeauto.filters': 'Filtrar las entidades',
  'homeauto.domain': 'Dominio',
  'homeauto.everyDomain': 'Todos los dominios',
  'homeauto.loadingEntities': 'Cargando las entidades',
  'homeauto.noEntities': 'Ninguna entidad',
  'homeauto.entities': 'Entidades',
  'homeauto.name': 'Nombre',
  'homeauto.entity': 'Entidad',
  'homeauto.state': 'Estado',
  'homeauto.changed': 'Cambiado',
  'homeauto.control': 'Control',
  'homeauto.loading': 'Cargando la domótica',
  'homeauto.none': 'Ninguna domótica',
  'homeauto.noneText': 'Un conector de Home Assistant (Administración, Conectores) trae aquí sus entidades.',
  'homeauto.choose': 'Elegir un Home Assistant',
  'homeauto.instance': 'Home Assistant',
};
