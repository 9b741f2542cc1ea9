import type { AreaTranslation } from './en.js';
import type { enrollment as english } from './enrollment.en.js';

export const enrollment: AreaTranslation<typeof english> = {
  'enrollment.state': '{state, select, revoked {已吊销} usedUp {已用完} expired {已过期} other {有效}}',
  'enrollment.createTitle': '创建注册令牌',
  'enrollment.create': '创建令牌',
  'enrollment.creating': '正在创建…',
  'enrollment.name': '名称',
  'enrollment.nameHint': '用途：一台机器、一批机器或一个站点。',
  'enrollment.lifetime': '有效期（小时）',
  'enrollment.lifetimeHint': '留空：使用 Hub 的默认值（设置 {setting}）。',
  'enrollment.uses': '允许的注册次数',
  'enrollment.usesHint': '留空：使用 Hub 的默认值（设置 {setting}）。',
  'enrollment.createdTitle': '令牌 {name} 已创建',
  'enrollment.shownOnce': '令牌只显示这一次。它允许 {uses, plural, other {# 次注册}}，有效期至 {until}。',
  'enrollment.command': '注册命令',
  'enrollment.runOwnCa':
    '在机器上运行它（需已安装 svc-agent），然后运行 {run}。{flag} 固定 Hub 自己的 CA，使代理只信任此 Hub。',
  'enrollment.runSystemCa': '此 Hub 的证书并非来自其自有 CA：代理将用机器的系统 CA 验证它。',
  'enrollment.token': '令牌',
  'enrollment.done': '完成',
  'enrollment.title': '注册令牌',
  'enrollment.intro':
    '机器使用令牌加入 Hub 一次：{command} 用它换取机器自己的凭据。令牌会过期，且只允许固定次数的注册。',
  'enrollment.loading': '正在加载注册令牌',
  'enrollment.none': '没有注册令牌',
  'enrollment.noneText': '创建一个令牌，以添加装有代理的机器。',
  'enrollment.stateHeader': '状态',
  'enrollment.used': '已用',
  'enrollment.expires': '到期',
  'enrollment.created': '创建时间',
  'enrollment.usedOf': '{uses} / {max}',
  'enrollment.revoke': '吊销',
  'enrollment.revokeNamed': '吊销 {name}',
  'enrollment.revokeTitle': '吊销令牌 {name}？',
  'enrollment.revokeToken': '吊销令牌',
  'enrollment.revokeText': '此后没有机器能再用它注册。已用它注册的机器保留各自的凭据。',
};
