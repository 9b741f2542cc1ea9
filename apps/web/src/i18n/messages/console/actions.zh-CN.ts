import type { AreaTranslation } from './en.js';
import type { actions as english } from './actions.en.js';

export const actions: AreaTranslation<typeof english> = {
  'actions.title': '已保存的操作',
  'actions.new': '新建操作',
  'actions.newTitle': '新建已保存的操作',
  'actions.save': '保存操作',
  'actions.name': '名称',
  'actions.command': '命令',
  'actions.runsOn': '运行于',
  'actions.created': '创建时间',
  'actions.onGroup': '分组 {name}',
  'actions.onAssets': '{n, plural, other {# 个资产}}',
  'actions.loading': '正在加载已保存的操作',
  'actions.none': '还没有已保存的操作',
  'actions.noneText': '已保存的操作会记住一条命令及其运行位置，一键即可再次运行。',
  'actions.run': '运行',
  'actions.runNamed': '运行 {name}',
  'actions.running': '正在运行…',
  'actions.resultsOf': '{name} 的结果',
  'actions.deleteTitle': '删除 {name}？',
  'actions.deleteText': '该操作将被删除；它此前运行过的内容仍保留在审计日志中。',
};
