import type { AreaTranslation } from './en.js';
import type { meshvpn as english } from './meshvpn.en.js';

export const meshvpn: AreaTranslation<typeof english> = {
  'meshvpn.checkAgain': '重新检查',
  'meshvpn.asking': '正在询问 Tailscale',
  'meshvpn.reason':
    '{reason, select, not_installed {Hub 主机上未安装 Tailscale} daemon_not_running {tailscaled 未运行} not_logged_in {Tailscale 未登录} stopped {Tailscale 已停止} error {无法询问 Tailscale} other {Tailscale 不可用}}',
  'meshvpn.checked': '检查于 {time}',
  'meshvpn.facts': 'Tailnet',
  'meshvpn.httpsName': 'HTTPS 名称',
  'meshvpn.httpsOff': '此 tailnet 中已关闭 HTTPS 证书',
  'meshvpn.dnsName': 'MagicDNS 名称',
  'meshvpn.tailnet': 'Tailnet',
  'meshvpn.addresses': '地址',
  'meshvpn.version': '版本',
  'meshvpn.serve': 'Serve',
  'meshvpn.publishing':
    '发布于 {ports}{funnel, select, yes {，funnel 已开启（公共互联网）} other {}}{foreground, select, yes {，在前台会话中} other {}}',
  'meshvpn.nothingServed': '未发布任何内容',
  'meshvpn.handlers': 'Serve 处理程序',
  'meshvpn.listener': '监听',
  'meshvpn.path': '路径',
  'meshvpn.kind': '类型',
  'meshvpn.target': '目标',
};
