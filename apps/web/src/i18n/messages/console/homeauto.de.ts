import type { AreaTranslation } from './en.js';
import type { homeauto as english } from './homeauto.en.js';

export const homeauto: AreaTranslation<typeof english> = {
  'homeauto.action':
    '{verb, select, turnOff {Ausschalten} turnOn {Einschalten} run {Ausführen} press {Drücken} unlock {Entriegeln} lock {Verriegeln} close {Schließen} other {Öffnen}}',
  'homeauto.actionNamed':
    '{verb, select, turnOff {{name} ausschalten} turnOn {{name} einschalten} run {{name} ausführen} press {{name} drücken} unlock {{name} entriegeln} lock {{name} verriegeln} close {{name} schließen} other {{name} öffnen}}',
  'homeauto.filters': 'Entitäten filtern',
  'homeauto.domain': 'Domäne',
  'homeauto.everyDomain': 'Jede Domäne',
  'homeauto.loadingEntities': 'Entitäten werden geladen',
  'homeauto.noEntities': 'Keine Entitäten',
  'homeauto.entities': 'Entitäten',
  'homeauto.name': 'Name',
  'homeauto.entity': 'Entität',
  'homeauto.state': 'Zustand',
  'homeauto.changed': 'Geändert',
  'homeauto.control': 'Steuerung',
  'homeauto.loading': 'Hausautomation wird geladen',
  'homeauto.none': 'Keine Hausautomation',
  'homeauto.noneText':
    'Ein Home-Assistant-Konnektor (Verwaltung, Konnektoren) bringt seine Entitäten hierher.',
  'homeauto.choose': 'Ein Home Assistant wählen',
  'homeauto.instance': 'Home Assistant',
};
