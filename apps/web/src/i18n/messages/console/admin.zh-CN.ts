import type { AreaTranslation } from './en.js';
import type { admin as english } from './admin.en.js';

export const admin: AreaTranslation<typeof english> = {
  'admin.title': '管理',
  'admin.nav': '管理',
  'admin.section':
    '{section, select, keys {API 密钥} users {用户} enrollment {注册} tls {TLS} tailscale {Tailscale} prometheus {Prometheus} settings {设置} audit {审计日志} other {Hub 状态}}',
  'admin.onlyTitle': '仅限管理员',
  'admin.onlyText':
    '此区域仅供管理员使用。您以 {username} 身份登录，角色为 {role}，Hub 会拒绝您在此处的请求。',
  'admin.toDashboard': '前往仪表板',
  'admin.missing': '没有这个管理页面',
  'admin.toKeys': '前往 API 密钥',
};
