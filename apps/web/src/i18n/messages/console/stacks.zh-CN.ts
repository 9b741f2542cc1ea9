import type { AreaTranslation } from './en.js';
import type { stacks as english } from './stacks.en.js';

export const stacks: AreaTranslation<typeof english> = {
  'stacks.loadingEndpoints': '正在加载端点',
  'stacks.noManager': '没有堆栈管理器',
  'stacks.noManagerText': 'Portainer 连接器（管理，连接器）会把它的端点带到这里。',
  'stacks.loadingStacks': '正在加载 {name} 的堆栈',
  'stacks.none': '没有堆栈',
  'stacks.noneText': 'Portainer 在此端点上没有管理任何堆栈。',
  'stacks.tableLabel': '{name} 上的堆栈',
  'stacks.stack': '堆栈',
  'stacks.type': '类型',
  'stacks.status': '状态',
  'stacks.variables': '变量',
  'stacks.created': '创建时间',
  'stacks.updated': '更新时间',
  'stacks.statusName': '{status, select, active {活动} inactive {未活动} other {{status}}}',
};
