import type { AreaTranslation } from './en.js';
import type { backup as english } from './backup.en.js';

export const backup: AreaTranslation<typeof english> = {
  'backup.loadingServers': '正在加载备份服务器',
  'backup.noServers': '没有备份服务器',
  'backup.noServersText': '添加 Proxmox Backup Server 连接器（管理 → 连接器）即可在此查看其数据存储。',
  'backup.loadingDatastores': '正在加载数据存储',
  'backup.datastore': '数据存储 {store}',
  'backup.maintenance':
    '{mode, select, read-only {维护模式只读：拒绝备份，恢复可用} offline {维护模式离线：备份和恢复均不可用} other {维护模式 {mode}}}',
  'backup.usageLabel': '{store} 用量',
  'backup.usage': '已用 {used}，共 {total}',
  'backup.free': '，{avail} 可用',
  'backup.fullAround': ' · 预计于 {time} 写满',
  'backup.groups': '{store} 中的备份组',
  'backup.namespace': '命名空间',
  'backup.group': '组',
  'backup.lastBackup': '上次备份',
  'backup.snapshots': '快照',
  'backup.owner': '所有者',
  'backup.root': '根',
};
