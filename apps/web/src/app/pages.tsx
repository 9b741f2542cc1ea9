/**
 * The console's pages: path, the lazy component, and its place in the navigation. A page of a new area is
 * one entry here (and its folder under features/); the sign-in page loads none of them.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/** The navigation's sections, in the order the sidebar shows them (decision 0027). */
export const navSections = ['Fleet', 'Automation', 'Integrations', 'Settings'] as const;
export type NavSection = (typeof navSections)[number];

export interface PageEntry {
  /** Relative to the root, react-router syntax. */
  path: string;
  component: LazyExoticComponent<ComponentType>;
  /** Shown in the navigation under this label, in this section. */
  nav?: { label: string; section: NavSection; adminOnly?: boolean };
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
    nav: { label: 'Dashboard', section: 'Fleet' },
  },
  {
    path: 'assets',
    component: page(() => import('../features/assets/AssetsPage'), 'AssetsPage'),
    nav: { label: 'Assets', section: 'Fleet' },
  },
  {
    path: 'assets/:id/*',
    component: page(() => import('../pages/asset/AssetPage'), 'AssetPage'),
  },
  {
    path: 'run',
    component: page(() => import('../features/run/RunPage'), 'RunPage'),
    nav: { label: 'Run', section: 'Automation' },
  },
  {
    path: 'groups',
    component: page(() => import('../features/groups/GroupsPage'), 'GroupsPage'),
    nav: { label: 'Groups', section: 'Fleet' },
  },
  {
    path: 'groups/:id',
    component: page(() => import('../features/groups/GroupPage'), 'GroupPage'),
  },
  {
    path: 'actions',
    component: page(() => import('../features/actions/ActionsPage'), 'ActionsPage'),
    nav: { label: 'Actions', section: 'Automation' },
  },
  {
    path: 'schedules',
    component: page(() => import('../features/schedules/SchedulesPage'), 'SchedulesPage'),
    nav: { label: 'Schedules', section: 'Automation' },
  },
  {
    path: 'maintenance',
    component: page(() => import('../features/maintenance/MaintenancePage'), 'MaintenancePage'),
    nav: { label: 'Maintenance', section: 'Automation' },
  },
  {
    path: 'checks',
    component: page(() => import('../features/checks/ChecksPage'), 'ChecksPage'),
    nav: { label: 'Checks', section: 'Fleet' },
  },
  {
    path: 'alerts',
    component: page(() => import('../features/alerts/AlertsPage'), 'AlertsPage'),
    nav: { label: 'Alerts', section: 'Automation' },
  },
  {
    path: 'alerts/rules',
    component: page(() => import('../features/alerts/RulesPage'), 'RulesPage'),
  },
  {
    path: 'incidents',
    component: page(() => import('../features/incidents/IncidentsPage'), 'IncidentsPage'),
    nav: { label: 'Incidents', section: 'Automation' },
  },
  {
    path: 'incidents/:id',
    component: page(() => import('../features/incidents/IncidentReviewPage'), 'IncidentReviewPage'),
  },
  {
    path: 'updates',
    component: page(() => import('../features/updates/UpdatesPage'), 'UpdatesPage'),
    nav: { label: 'Updates', section: 'Fleet' },
  },
  {
    path: 'updates/runs',
    component: page(() => import('../features/updates/UpdateRunsPage'), 'UpdateRunsPage'),
  },
  {
    path: 'updates/runs/new',
    component: page(() => import('../features/updates/NewUpdateRunPage'), 'NewUpdateRunPage'),
  },
  {
    path: 'updates/runs/:id',
    component: page(() => import('../features/updates/UpdateRunPage'), 'UpdateRunPage'),
  },
  {
    path: 'discovery',
    component: page(() => import('../features/discovery/DiscoveryPage'), 'DiscoveryPage'),
    nav: { label: 'Discovery', section: 'Fleet' },
  },
  {
    path: 'virt',
    component: page(() => import('../features/virt/VirtPage'), 'VirtPage'),
    nav: { label: 'Virtualization', section: 'Integrations' },
  },
  {
    path: 'storage',
    component: page(() => import('../features/nas/StoragePage'), 'StoragePage'),
    nav: { label: 'Storage', section: 'Integrations' },
  },
  {
    path: 'backups',
    component: page(() => import('../features/backup/BackupPage'), 'BackupPage'),
    nav: { label: 'Backups', section: 'Integrations' },
  },
  {
    path: 'stacks',
    component: page(() => import('../features/stacks/StacksPage'), 'StacksPage'),
    nav: { label: 'Stacks', section: 'Integrations' },
  },
  {
    path: 'home',
    component: page(() => import('../features/homeauto/HomePage'), 'HomePage'),
    nav: { label: 'Home', section: 'Integrations' },
  },
  {
    path: 'webhooks',
    component: page(() => import('../features/webhooks/WebhooksPage'), 'WebhooksPage'),
    nav: { label: 'Webhooks', section: 'Settings' },
  },
  {
    path: 'notifications',
    component: page(() => import('../features/notifications/NotificationsPage'), 'NotificationsPage'),
    nav: { label: 'Notifications', section: 'Settings', adminOnly: true },
  },
  {
    path: 'dependencies',
    component: page(() => import('../features/dependencies/DependenciesPage'), 'DependenciesPage'),
    nav: { label: 'Dependencies', section: 'Fleet' },
  },
  {
    path: 'desktop',
    component: page(() => import('../features/sessions/DesktopsPage'), 'DesktopsPage'),
    nav: { label: 'Desktops', section: 'Fleet' },
  },
  {
    path: 'desktop/recordings/:id',
    component: page(() => import('../features/sessions/DesktopsPage'), 'DesktopRecordingPage'),
  },
  {
    path: 'integrations',
    component: page(() => import('../features/integrations/IntegrationsPage'), 'IntegrationsPage'),
    nav: { label: 'Integrations', section: 'Settings' },
  },
  {
    path: 'connectors',
    component: page(() => import('../features/connectors/ConnectorsPage'), 'ConnectorsPage'),
    nav: { label: 'Connectors', section: 'Settings', adminOnly: true },
  },
  {
    path: 'admin',
    component: page(() => import('../features/admin/AdminArea'), 'AdminIndex'),
    nav: { label: 'Admin', section: 'Settings', adminOnly: true },
  },
  {
    path: 'admin/*',
    component: page(() => import('../features/admin/AdminArea'), 'AdminArea'),
  },
  {
    path: 'sessions',
    component: page(() => import('../features/sessions/SessionsPage'), 'SessionsPage'),
    nav: { label: 'Sessions', section: 'Fleet' },
  },
  {
    path: 'sessions/:id',
    component: page(() => import('../features/sessions/TerminalPage'), 'TerminalPage'),
  },
  {
    path: 'account/*',
    component: page(() => import('../features/account/AccountPage'), 'AccountPage'),
  },
];

export const NotFoundPage = page(() => import('./NotFoundPage'), 'NotFoundPage');
