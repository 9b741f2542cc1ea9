import type { AreaTranslation } from './en.js';
import type { audit as english } from './audit.en.js';

export const audit: AreaTranslation<typeof english> = {
  'audit.title': '审计日志',
  'audit.filters': '筛选审计日志',
  'audit.action': '操作',
  'audit.actor': '执行者',
  'audit.actorPlaceholder': 'usr_… 或 key_…',
  'audit.asset': '资产',
  'audit.from': '从',
  'audit.until': '至',
  'audit.apply': '应用筛选',
  'audit.clear': '清除',
  'audit.caption': '审计事件，最新的在前',
  'audit.time': '时间',
  'audit.target': '目标',
  'audit.address': '地址',
  'audit.detail': '详情',
  'audit.loading': '正在加载审计日志',
  'audit.noMatch': '没有匹配的审计事件',
  'audit.none': '尚无审计事件',
};
