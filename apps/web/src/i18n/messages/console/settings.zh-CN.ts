import type { AreaTranslation } from './en.js';
import type { settings as english } from './settings.en.js';

export const settings: AreaTranslation<typeof english> = {
  'settings.title': '设置',
  'settings.loading': '正在加载设置',
  'settings.intro':
    '此处设置的值优先于环境变量，环境变量优先于默认值。策略立即生效；启动时读取的设置需等待重启。',
  'settings.domain':
    '{domain, select, enrollment {注册} connectors {连接器} retention {保留} runtime {运行时与策略} notifications {通知} other {{domain}}}',
  'settings.domainLower':
    '{domain, select, enrollment {注册} connectors {连接器} retention {保留} runtime {运行时与策略} notifications {通知} other {{domain}}}',
  'settings.domainAbout':
    '{domain, select, enrollment {代理引导：新注册令牌的默认值。} connectors {采集器行为：代理连接时下发的服务发现默认值。} retention {历史记录保留多久。} runtime {默认行为、策略开关和速率限制。} notifications {告警路由和升级。} other {{domain}}}',
  'settings.domainForm': '{domain}设置',
  'settings.editDomain': '编辑{domain}设置',
  'settings.saveDomain': '保存{domain}',
  'settings.column': '{column, select, setting {设置项} value {值} other {来源}}',
  'settings.source': '{source, select, api {API} env {环境变量} other {默认}}',
  'settings.envVar': '环境变量 {name}',
  'settings.switch': '{on, select, yes {开} other {关}}',
  'settings.hint':
    '默认值 {value}{env, select, none {} other {，环境变量 {env}}}{restart, select, yes {；重启后生效} other {}}。',
  'settings.clear': '清除 API 设置的值（改用{env, select, yes {环境变量或默认值} other {默认值}}）',
  'settings.restartToApply': '重启后生效',
  'settings.restartToApplyTitle': '启动时读取：更改在重启后生效',
  'settings.waitsRestart': '等待重启',
  'settings.saved': '已保存：{changed}。',
  'settings.savedNothing': '已保存，无更改。',
  'settings.appliesAfterRestart': '{keys} 在重启后生效{n, plural, other {}}。',
  'settings.restart': '重启',
  'settings.pending': '{n, plural, other {# 项设置}}等待重启：{keys}。',
  'settings.noPending': '没有等待重启的设置。',
  'settings.restarting': 'hub 正在重启；等待其响应…',
  'settings.back': 'hub 已重启并重新响应。',
  'settings.restartHub': '重启 hub',
  'settings.restartTitle': '重启 hub？',
  'settings.restartNow': '立即重启',
  'settings.restartText':
    'hub 将停止服务几秒钟：代理会重新连接，进行中的命令会被中断，启动时读取的设置将采用新值。',
  'settings.noAnswer': 'hub 在 {seconds} 秒内没有再次响应。请查看其日志，然后重新加载。',
};
