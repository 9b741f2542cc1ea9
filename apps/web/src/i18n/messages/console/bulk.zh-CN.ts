import type { AreaTranslation } from './en.js';
import type { bulk as english } from './bulk.en.js';

export const bulk: AreaTranslation<typeof english> = {
  'bulk.title': '在每个成员上操作服务',
  'bulk.service': '服务',
  'bulk.action': '操作',
  'bulk.actionName': '{action, select, start {启动} stop {停止} other {重启}}',
  'bulk.sending': '正在发送…',
  'bulk.apply': '应用到该组',
  'bulk.summary': '{total, plural, other {# 个目标}}：{ok} 个成功，{offline} 个离线，{error} 个出错',
  'bulk.results': '服务结果',
  'bulk.asset': '资产',
  'bulk.result': '结果',
  'bulk.stateOrReason': '状态或原因',
  'bulk.status': '{status, select, ok {成功} offline {离线} other {出错}}',
};
