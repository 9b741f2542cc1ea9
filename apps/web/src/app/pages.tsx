/**
 * The console's pages: path, the lazy component, and its place in the navigation. A page of a new area is
 * one entry here (and its folder under features/); the sign-in page loads none of them.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

export interface PageEntry {
  /** Relative to the root, react-router syntax. */
  path: string;
  component: LazyExoticComponent<ComponentType>;
  /** Shown in the navigation under this label. */
  nav?: { label: string; adminOnly?: boolean };
}

function page<K extends string>(
  load: () => Promise<Record<K, ComponentType>>,
  name: K,
): LazyExoticComponent<ComponentType> {
  return lazy(() => load().then((module) => ({ default: module[name] })));
}

export const pages: readonly PageEntry[] = [
  {
    path: 'dashboard',
    component: page(() => import('../features/dashboard/DashboardPage'), 'DashboardPage'),
    nav: { label: 'Dashboard' },
  },
  {
    path: 'assets',
    component: page(() => import('../features/assets/AssetsPage'), 'AssetsPage'),
    nav: { label: 'Assets' },
  },
  {
    path: 'assets/:id/*',
    component: page(() => import('../pages/asset/AssetPage'), 'AssetPage'),
  },
  {
    path: 'run',
    component: page(() => import('../features/run/RunPage'), 'RunPage'),
    nav: { label: 'Run' },
  },
  {
    path: 'groups',
    component: page(() => import('../features/groups/GroupsPage'), 'GroupsPage'),
    nav: { label: 'Groups' },
  },
  {
    path: 'groups/:id',
    component: page(() => import('../features/groups/GroupPage'), 'GroupPage'),
  },
  {
    path: 'actions',
    component: page(() => import('../features/actions/ActionsPage'), 'ActionsPage'),
    nav: { label: 'Actions' },
  },
  {
    path: 'schedules',
    component: page(() => import('../features/schedules/SchedulesPage'), 'SchedulesPage'),
    nav: { label: 'Schedules' },
  },
  {
    path: 'alerts',
    component: page(() => import('../features/alerts/AlertsPage'), 'AlertsPage'),
    nav: { label: 'Alerts' },
  },
  {
    path: 'alerts/rules',
    component: page(() => import('../features/alerts/RulesPage'), 'RulesPage'),
  },
  {
    path: 'incidents',
    component: page(() => import('../features/incidents/IncidentsPage'), 'IncidentsPage'),
    nav: { label: 'Incidents' },
  },
  {
    path: 'discovery',
    component: page(() => import('../features/discovery/DiscoveryPage'), 'DiscoveryPage'),
    nav: { label: 'Discovery' },
  },
  {
    path: 'storage',
    component: page(() => import('../features/nas/StoragePage'), 'StoragePage'),
    nav: { label: 'Storage' },
  },
  {
    path: 'stacks',
    component: page(() => import('../features/stacks/StacksPage'), 'StacksPage'),
    nav: { label: 'Stacks' },
  },
  {
    path: 'home',
    component: page(() => import('../features/homeauto/HomePage'), 'HomePage'),
    nav: { label: 'Home' },
  },
  {
    path: 'webhooks',
    component: page(() => import('../features/webhooks/WebhooksPage'), 'WebhooksPage'),
    nav: { label: 'Webhooks' },
  },
  {
    path: 'notifications',
    component: page(() => import('../features/notifications/NotificationsPage'), 'NotificationsPage'),
    nav: { label: 'Notifications', adminOnly: true },
  },
  {
    path: 'virt',
    component: page(() => import('../features/virt/VirtPage'), 'VirtPage'),
    nav: { label: 'Virtualization' },
  },
  {
    path: 'backups',
    component: page(() => import('../features/backup/BackupPage'), 'BackupPage'),
    nav: { label: 'Backups' },
  },
  {
    path: 'dependencies',
    component: page(() => import('../features/dependencies/DependenciesPage'), 'DependenciesPage'),
    nav: { label: 'Dependencies' },
  },
  {
    path: 'connectors',
    component: page(() => import('../features/connectors/ConnectorsPage'), 'ConnectorsPage'),
    nav: { label: 'Connectors', adminOnly: true },
  },
  {
    path: 'admin',
    component: page(() => import('../features/admin/AdminArea'), 'AdminIndex'),
    nav: { label: 'Admin', adminOnly: true },
  },
  {
    path: 'admin/*',
    component: page(() => import('../features/admin/AdminArea'), 'AdminArea'),
  },
  {
    path: 'account/*',
    component: page(() => import('../features/account/AccountPage'), 'AccountPage'),
  },
];

export const NotFoundPage = page(() => import('./NotFoundPage'), 'NotFoundPage');
