/**
 * The sections of the asset page, in tab order: path under `/assets/<id>/` ('' is the overview), label and
 * the lazy component. A tab loads its code the first time it is opened.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { Asset } from '@svc/protocol';
import type { MessageKey } from '../../i18n/messages/en';

export interface AssetTabProps {
  asset: Asset;
}

interface AssetTab {
  path: string;
  /** The tab's name: a catalogue key. */
  label: MessageKey;
  component: LazyExoticComponent<ComponentType<AssetTabProps>>;
}

function tab<K extends string>(
  load: () => Promise<Record<K, ComponentType<AssetTabProps>>>,
  name: K,
): LazyExoticComponent<ComponentType<AssetTabProps>> {
  return lazy(() => load().then((module) => ({ default: module[name] })));
}

export const assetTabs: readonly AssetTab[] = [
  { path: '', label: 'assetTab.overview', component: tab(() => import('./tabs/OverviewTab'), 'OverviewTab') },
  {
    path: 'metrics',
    label: 'assetTab.metrics',
    component: tab(() => import('./tabs/MetricsTab'), 'MetricsTab'),
  },
  {
    path: 'processes',
    label: 'assetTab.processes',
    component: tab(() => import('./tabs/ProcessesTab'), 'ProcessesTab'),
  },
  {
    path: 'services',
    label: 'assetTab.services',
    component: tab(() => import('./tabs/ServicesTab'), 'ServicesTab'),
  },
  {
    path: 'checks',
    label: 'assetTab.checks',
    component: tab(() => import('../../features/checks/AssetChecksTab'), 'AssetChecksTab'),
  },
  {
    path: 'containers',
    label: 'assetTab.containers',
    component: tab(() => import('./tabs/ContainersTab'), 'ContainersTab'),
  },
  {
    path: 'network',
    label: 'assetTab.network',
    component: tab(() => import('./tabs/NetworkTab'), 'NetworkTab'),
  },
  { path: 'disks', label: 'assetTab.disks', component: tab(() => import('./tabs/DisksTab'), 'DisksTab') },
  {
    path: 'terminal',
    label: 'assetTab.terminal',
    component: tab(() => import('./tabs/TerminalTab'), 'TerminalTab'),
  },
  {
    path: 'packages',
    label: 'assetTab.packages',
    component: tab(() => import('./tabs/PackagesTab'), 'PackagesTab'),
  },
  {
    path: 'updates',
    label: 'assetTab.updates',
    component: tab(() => import('../../features/updates/AssetUpdatesTab'), 'AssetUpdatesTab'),
  },
  { path: 'cron', label: 'assetTab.cron', component: tab(() => import('./tabs/CronTab'), 'CronTab') },
  { path: 'users', label: 'assetTab.users', component: tab(() => import('./tabs/UsersTab'), 'UsersTab') },
  { path: 'logs', label: 'assetTab.logs', component: tab(() => import('./tabs/LogsTab'), 'LogsTab') },
  { path: 'files', label: 'assetTab.files', component: tab(() => import('./tabs/FilesTab'), 'FilesTab') },
  {
    path: 'desktop',
    label: 'assetTab.desktop',
    component: tab(() => import('../../features/sessions/DesktopTab'), 'DesktopTab'),
  },
];
