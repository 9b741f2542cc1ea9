import type { AreaTranslation } from './en.js';
import type { homeauto as english } from './homeauto.en.js';

export const homeauto: AreaTranslation<typeof english> = {
  'homeauto.action':
    '{verb, select, turnOff {关闭} turnOn {打开} run {运行} press {按下} unlock {解锁} lock {上锁} close {关上} other {开启}}',
  'homeauto.actionNamed':
    '{verb, select, turnOff {关闭 {name}} turnOn {打开 {name}} run {运行 {name}} press {按下 {name}} unlock {解锁 {name}} lock {上锁 {name}} close {关上 {name}} other {开启 {name}}}',
  'homeauto.filters': '筛选实体',
  'homeauto.domain': '域',
  'homeauto.everyDomain': '所有域',
  'homeauto.loadingEntities': '正在加载实体',
  'homeauto.noEntities': '没有实体',
  'homeauto.entities': '实体',
  'homeauto.name': '名称',
  'homeauto.entity': '实体 ID',
  'homeauto.state': '状态',
  'homeauto.changed': '变更时间',
  'homeauto.control': '控制',
  'homeauto.loading': '正在加载家居自动化',
  'homeauto.none': '没有家居自动化',
  'homeauto.noneText': 'Home Assistant 连接器（管理，连接器）会把它的实体带到这里。',
  'homeauto.choose': '选择 Home Assistant',
  'homeauto.instance': 'Home Assistant',
};
