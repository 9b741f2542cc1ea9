import type { AreaTranslation } from './en.js';
import type { dependencies as english } from './dependencies.en.js';

export const dependencies: AreaTranslation<typeof english> = {
  'dependencies.count': '{assets, plural, other {# 个资产}}，{links, plural, other {# 条关联}}',
  'dependencies.loading': '正在加载关系图',
  'dependencies.none': '还没有资产',
  'dependencies.noneText': '资产及其之间的关联显示在这里：虚拟化主机和客户机、存储、备份。',
  'dependencies.whatBreaks': '如果它宕机，哪些会受影响',
  'dependencies.noAsset': '不选资产',
  'dependencies.blastOf': '{name}：{radius}',
  'dependencies.graphRegion': '依赖关系图，可滚动',
  'dependencies.graphLabel':
    '依赖关系图：{assets, plural, other {# 个资产}}，{links, plural, other {# 条关联}}',
  'dependencies.column':
    '{column, select, backup {备份} hypervisors {虚拟化主机} guests {客户机} storage {存储} containers {容器} other {主机及其他}}',
  'dependencies.edgeType':
    '{type, select, hosts {托管} runs {运行} stores {存储} backs_up {备份} declared {声明} other {{type}}}',
  'dependencies.edge':
    '{from} {type, select, hosts {托管} runs {运行} stores {存储} backs_up {备份} declared {依赖} other {{type}}} {to}',
  'dependencies.edgeLabelled':
    '{from} {type, select, hosts {托管} runs {运行} stores {存储} backs_up {备份} declared {依赖} other {{type}}} {to}（{label}）',
  'dependencies.legend': '图例',
  'dependencies.declared': '声明的关联',
  'dependencies.noDeclared': '暂无。',
  'dependencies.dependsOn': '{from} 依赖 {to}',
  'dependencies.removeLink': '移除 {from} 到 {to} 的关联',
  'dependencies.declare': '声明关联',
  'dependencies.depends': '依赖方',
  'dependencies.on': '被依赖方',
  'dependencies.choose': '请选择…',
  'dependencies.label': '标签',
  'dependencies.addLink': '添加关联',
};
