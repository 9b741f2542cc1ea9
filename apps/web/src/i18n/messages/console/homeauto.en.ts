/** The Home page (features/homeauto): Home Assistant's entities and their controls. */
export const homeauto = {
  'homeauto.action':
    '{verb, select, turnOff {Turn off} turnOn {Turn on} run {Run} press {Press} unlock {Unlock} lock {Lock} close {Close} other {Open}}',
  'homeauto.actionNamed':
    '{verb, select, turnOff {Turn off {name}} turnOn {Turn on {name}} run {Run {name}} press {Press {name}} unlock {Unlock {name}} lock {Lock {name}} close {Close {name}} other {Open {name}}}',
  'homeauto.filters': 'Filter entities',
  'homeauto.domain': 'Domain',
  'homeauto.everyDomain': 'Every domain',
  'homeauto.loadingEntities': 'Loading entities',
  'homeauto.noEntities': 'No entities',
  'homeauto.entities': 'Entities',
  'homeauto.name': 'Name',
  'homeauto.entity': 'Entity',
  'homeauto.state': 'State',
  'homeauto.changed': 'Changed',
  'homeauto.control': 'Control',
  'homeauto.loading': 'Loading home automation',
  'homeauto.none': 'No home automation',
  'homeauto.noneText': 'A Home Assistant connector (Admin, Connectors) brings its entities here.',
  'homeauto.choose': 'Choose a Home Assistant',
  'homeauto.instance': 'Home Assistant',
};
