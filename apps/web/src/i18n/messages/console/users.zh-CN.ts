import type { AreaTranslation } from './en.js';
import type { users as english } from './users.en.js';

export const users: AreaTranslation<typeof english> = {
  'users.title': '用户',
  'users.add': '添加用户',
  'users.addTitle': '添加用户',
  'users.adding': '正在添加…',
  'users.username': '用户名',
  'users.usernameHint': '字母、数字以及 . _ @ -',
  'users.password': '密码',
  'users.passwordHint': '至少 {min} 个字符；请通过安全渠道告知该用户。',
  'users.role': '角色',
  'users.roleDescription':
    '{role, select, owner {全部权限；保留给首次运行时创建的账户（应急账户）} admin {除所有者保留权限外的全部：密钥、用户、设置、TLS、注册} operator {查看并操作设备群：命令、文件、服务、电源；无管理权限} other {只读：任何更改都会被拒绝}}',
  'users.changeRoleTitle': '更改 {name} 的角色',
  'users.resetTitle': '重置 {name} 的密码',
  'users.changeRole': '更改角色',
  'users.resetPassword': '重置密码',
  'users.changeRoleNamed': '更改 {name} 的角色',
  'users.resetPasswordNamed': '重置 {name} 的密码',
  'users.roleHint': '{description}。该用户的会话将结束：需以新角色重新登录。',
  'users.newPassword': '新密码',
  'users.newPasswordHint': '该用户的会话将结束；需使用此密码登录。',
  'users.removalTitle':
    '{kind, select, disable {停用 {name}？} enable {启用 {name}？} other {删除 {name}？}}',
  'users.removalConfirm': '{kind, select, disable {停用用户} enable {启用用户} other {删除用户}}',
  'users.enableText':
    '{name} 可以再次登录。其 API 密钥恢复可用，以其身份运行的计划任务从下一次触发起恢复运行。',
  'users.disableSignIn': '{name} 无法登录；其所有控制台会话立即结束。',
  'users.disableKeys': '在重新启用前，其 API 密钥返回 401（密钥会保留）。',
  'users.disableSchedules': '在此之前，以其身份运行的计划任务每次触发都会被拒绝，并注明原因。',
  'users.deleteAccount':
    '{name} 的账户、控制台会话、API 密钥、手机通行密钥和推送订阅，以及个人终端代码片段和书签将被永久删除。',
  'users.deleteShared':
    '其共享代码片段会留给其他人：转给下方选择的用户，否则仍归在 {name} 的 ID 下，管理员仍可修改。',
  'users.deleteAudit': '审计日志会以其 ID 和名称保留其所有操作。',
  'users.deleteSchedules':
    '如果有计划任务以 {name} 的身份运行，除非您选择今后由谁运行它们（权限绝不超过 {name} 原有的权限），否则删除将被拒绝。',
  'users.deleteSso':
    '通过单点登录创建的账户，在 {name} 再次从那里登录时会被重新创建（为空）：若要阻止其登录，请改为停用，或在身份提供商处将其删除。',
  'users.heir': '计划任务和共享代码片段转给',
  'users.nobody': '无人：若有计划任务以其身份运行则拒绝',
  'users.heirOption': '{name}（{role}）',
  'users.loading': '正在加载用户',
  'users.none': '没有用户',
  'users.column': '{column, select, username {用户名} role {角色} created {创建时间} other {修改时间}}',
  'users.you': '您',
  'users.disabled': '已停用',
  'users.toggle': '{kind, select, disable {停用} other {启用}}',
  'users.toggleNamed': '{kind, select, disable {停用 {name}} other {启用 {name}}}',
  'users.roles': '角色',
  'users.ownAccount': '您自己的密码和双因素登录位于{link}。',
  'users.ownAccountLink': '您的账户',
};
