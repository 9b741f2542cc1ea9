import type { AreaTranslation } from './en.js';
import type { metrics as english } from './metrics.en.js';

export const metrics: AreaTranslation<typeof english> = {
  'metrics.range': '时间范围',
  'metrics.rangeName': '{range, select, 1h {1 小时} 6h {6 小时} 24h {24 小时} 7d {7 天} other {30 天}}',
  'metrics.fetching': '正在加载…',
  'metrics.samples': '{count, plural, other {# 个样本}}',
  'metrics.samplesLive': '{count, plural, other {# 个样本}}，每 30 秒刷新',
  'metrics.samplesBucketed':
    '{count, plural, other {# 个样本}}，分为 {buckets, plural, other {# 个区间}}（最小、最大和平均）',
  'metrics.loading': '正在加载指标',
  'metrics.truncated':
    '此范围内的样本超过控制台一次可获取的数量：图表在当前时间之前结束。请选择更短的范围查看最新数据。',
  'metrics.none': '此时间范围（{range}）内没有样本',
  'metrics.agentSends': '代理在连接期间发送样本。',
  'metrics.noAgent': '指标来自代理；此设备没有代理。',
  'metrics.chart': '{chart, select, cpu {CPU} memory {内存} disk {磁盘} load {负载} other {网络}}',
  'metrics.line':
    '{line, select, cpu {CPU} memory {已用内存} disk {已用磁盘} load {负载（1 分钟）} rx {接收} other {发送}}',
  'metrics.unit': '{unit, select, percent {%} used {% 已用} load {负载（1 分钟）} other {字节/秒}}',
};
