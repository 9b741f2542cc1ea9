/**
 * The sections of the asset page, in tab order: path under `/assets/<id>/` ('' is the overview), label and
 * the lazy component. A tab loads its code the first time it is opened.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { Asset } from '@svc/protocol';

export interface AssetTabProps {
  asset: Asset;
}

interface AssetTab {
  path: string;
  label: string;
  component: LazyExoticComponent<ComponentType<AssetTabProps>>;
}

function tab<K extends string>(
  load: () => Promise<Record<K, ComponentType<AssetTabProps>>>,
  name: K,
): LazyExoticComponent<ComponentType<AssetTabProps>> {
  return lazy(() => load().then((module) => ({ default: module[name] })));
}

export const assetTabs: readonly AssetTab[] = [
  { path: '', label: 'Overview', component: tab(() => import('./tabs/OverviewTab'), 'OverviewTab') },
  { path: 'metrics', label: 'Metrics', component: tab(() => import('./tabs/MetricsTab'), 'MetricsTab') },
  {
    path: 'processes',
    label: 'Processes',
    component: tab(() => import('./tabs/ProcessesTab'), 'ProcessesTab'),
  },
  { path: 'services', label: 'Services', component: tab(() => import('./tabs/ServicesTab'), 'ServicesTab') },
  {
    path: 'checks',
    label: 'Checks',
    component: tab(() => import('../../features/checks/AssetChecksTab'), 'AssetChecksTab'),
  },
  {
    path: 'containers',
    label: 'Containers',
    component: tab(() => import('./tabs/ContainersTab'), 'ContainersTab'),
  },
  { path: 'network', label: 'Network', component: tab(() => import('./tabs/NetworkTab'), 'NetworkTab') },
  { path: 'disks', label: 'Disks', component: tab(() => import('./tabs/DisksTab'), 'DisksTab') },
  { path: 'terminal', label: 'Terminal', component: tab(() => import('./tabs/TerminalTab'), 'TerminalTab') },
  { path: 'packages', label: 'Packages', component: tab(() => import('./tabs/PackagesTab'), 'PackagesTab') },
  {
    path: 'updates',
    label: 'Updates',
    component: tab(() => import('../../features/updates/AssetUpdatesTab'), 'AssetUpdatesTab'),
  },
  { path: 'cron', label: 'Cron', component: tab(() => import('./tabs/CronTab'), 'CronTab') },
  { path: 'users', label: 'Users', component: tab(() => import('./tabs/UsersTab'), 'UsersTab') },
  { path: 'logs', label: 'Logs', component: tab(() => import('./tabs/LogsTab'), 'LogsTab') },
  { path: 'files', label: 'Files', component: tab(() => import('./tabs/FilesTab'), 'FilesTab') },
  {
    path: 'desktop',
    label: 'Desktop',
    component: tab(() => import('../../features/sessions/DesktopTab'), 'DesktopTab'),
  },
];
