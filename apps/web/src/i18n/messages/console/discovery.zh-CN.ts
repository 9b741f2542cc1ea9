import type { AreaTranslation } from './en.js';
import type { discovery as english } from './discovery.en.js';

export const discovery: AreaTranslation<typeof english> = {
  'discovery.intro':
    '代理上报的容器和监听端口，以及在设置中启用 LAN 扫描时某个 LAN 网段内的主机。每项发现都在此等待，直到有人接受或忽略它。',
  'discovery.run': '运行发现',
  'discovery.running': '正在发现…',
  'discovery.cidr': 'LAN CIDR（可选）',
  'discovery.portsOptional': '端口（可选）',
  'discovery.done':
    '发现完成：{asked} 个代理中有 {answered} 个应答，{found, plural, other {找到 # 项}}，{suggestions, plural, other {# 条新建议}}',
  'discovery.doneEnd': '{done}。',
  'discovery.doneLan':
    '{done}；LAN {cidr}：{probes, plural, other {# 次探测}}发现 {hosts, plural, other {# 台新主机}}。',
  'discovery.stack': '栈 {name}',
  'discovery.ports': '端口 {ports}',
  'discovery.on': '位于 {address}',
  'discovery.tcp': 'TCP {ports}',
  'discovery.decided':
    '{outcome, select, added {{title}：已接受，已添加为资产} accepted {{title}：已接受} other {{title}：已忽略}}',
  'discovery.acceptTitle': '接受 {title}？',
  'discovery.dismissTitle': '忽略 {title}？',
  'discovery.addAsAsset': '添加为资产',
  'discovery.accept': '接受',
  'discovery.acceptNamed': '接受 {title}',
  'discovery.dismiss': '忽略',
  'discovery.dismissNamed': '忽略 {title}',
  'discovery.hostText': '该主机将成为使用此地址的手动资产；之后可以在其上注册代理。',
  'discovery.assetName': '资产名称',
  'discovery.acceptText': '将其标记为已知。它已属于所在资产；其他不变。',
  'discovery.dismissText': '之后的运行再次发现它时，它仍保持忽略状态。',
  'discovery.checkMade': '{name}：已创建检查。{link}。',
  'discovery.seeChecks': '在“检查”页面查看',
  'discovery.filters': '筛选建议',
  'discovery.status': '状态',
  'discovery.anyStatus': '任意状态',
  'discovery.statusValue':
    '{status, select, pending {待处理} accepted {已接受} dismissed {已忽略} other {{status}}}',
  'discovery.kind': '类型',
  'discovery.anyKind': '任意类型',
  'discovery.kindValue': '{kind, select, container {容器} port {监听端口} host {LAN 主机} other {{kind}}}',
  'discovery.loading': '正在加载建议',
  'discovery.none': '没有建议',
  'discovery.noneText': '运行发现，询问代理其主机上运行着什么。',
  'discovery.suggestions': '建议',
  'discovery.found': '发现项',
  'discovery.details': '详情',
  'discovery.lastSeen': '最后发现',
  'discovery.asset': '资产',
  'discovery.watch': '监控',
  'discovery.watchNamed': '用检查监控 {title}',
};
