import type { AreaTranslation } from './en.js';
import type { run as english } from './run.en.js';

export const run: AreaTranslation<typeof english> = {
  'run.title': '运行命令',
  'run.viewerNotice': '您的角色可以查看设备群，但不能在其上运行命令。',
  'run.noGroups': '尚无分组：{link}。',
  'run.makeGroup': '新建一个',
  'run.command': '命令',
  'run.timeout': '超时（秒，1 到 {max}）',
  'run.run': '运行',
  'run.running': '正在运行…',
  'run.stopWaiting': '停止等待',
  'run.stopNote': '停止等待不会停止已发送的命令：它们会在代理上运行到结束。',
  'run.streamBroken': '{message}：下面是已收到的结果。',
  'run.results': '结果',
  'run.targets': '{n, plural, other {# 个目标}}',
  'run.statusCount': '{n} 个{status, select, ok {成功} timeout {超时} offline {离线} other {出错}}',
  'run.summary': '{targets}：{counts}',
  'run.summaryRunning': '{summary}；{n} 个运行中',
  'run.status': '{status, select, ok {成功} timeout {超时} offline {离线} error {出错} other {运行中…}}',
  'run.exitCode': '退出码 {code}',
  'run.waiting': '正在等待代理…',
  'run.truncated': '输出已截断',
  'run.truncatedTitle': '输出超过了 hub 保留的长度',
  'run.leftRunning':
    '命令留下 {n, plural, other {# 个进程}}仍在运行；代理{killed, select, yes {已将其结束} other {未能全部结束}}。',
  'run.noOutput': '无输出。',
};
