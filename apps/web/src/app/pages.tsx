/**
 * The console's pages: path, the lazy component, and its place in the navigation. A page of a new area is
 * one entry here (and its folder under features/); the sign-in page loads none of them.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { MessageKey } from '../i18n/messages/en';

/** The navigation's sections, in the order the sidebar shows them (decision 0027); named by `nav.section`. */
export const navSections = ['fleet', 'automation', 'integrations', 'settings'] as const;
export type NavSection = (typeof navSections)[number];

export interface PageEntry {
  /** Relative to the root, react-router syntax. */
  path: string;
  component: LazyExoticComponent<ComponentType>;
  /** Shown in the navigation under this label (a catalogue key), in this section. */
  nav?: { label: MessageKey; section: NavSection; adminOnly?: boolean };
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
    nav: { label: 'nav.dashboard', section: 'fleet' },
  },
  {
    path: 'assets',
    component: page(() => import('../features/assets/AssetsPage'), 'AssetsPage'),
    nav: { label: 'nav.assets', section: 'fleet' },
  },
  {
    path: 'assets/:id/*',
    component: page(() => import('../pages/asset/AssetPage'), 'AssetPage'),
  },
  {
    path: 'run',
    component: page(() => import('../features/run/RunPage'), 'RunPage'),
    nav: { label: 'nav.run', section: 'automation' },
  },
  {
    path: 'groups',
    component: page(() => import('../features/groups/GroupsPage'), 'GroupsPage'),
    nav: { label: 'nav.groups', section: 'fleet' },
  },
  {
    path: 'groups/:id',
    component: page(() => import('../features/groups/GroupPage'), 'GroupPage'),
  },
  {
    path: 'actions',
    component: page(() => import('../features/actions/ActionsPage'), 'ActionsPage'),
    nav: { label: 'nav.actions', section: 'automation' },
  },
  {
    path: 'schedules',
    component: page(() => import('../features/schedules/SchedulesPage'), 'SchedulesPage'),
    nav: { label: 'nav.schedules', section: 'automation' },
  },
  {
    path: 'maintenance',
    component: page(() => import('../features/maintenance/MaintenancePage'), 'MaintenancePage'),
    nav: { label: 'nav.maintenance', section: 'automation' },
  },
  {
    path: 'checks',
    component: page(() => import('../features/checks/ChecksPage'), 'ChecksPage'),
    nav: { label: 'nav.checks', section: 'fleet' },
  },
  {
    path: 'alerts',
    component: page(() => import('../features/alerts/AlertsPage'), 'AlertsPage'),
    nav: { label: 'nav.alerts', section: 'automation' },
  },
  {
    path: 'alerts/rules',
    component: page(() => import('../features/alerts/RulesPage'), 'RulesPage'),
  },
  {
    path: 'incidents',
    component: page(() => import('../features/incidents/IncidentsPage'), 'IncidentsPage'),
    nav: { label: 'nav.incidents', section: 'automation' },
  },
  {
    path: 'incidents/:id',
    component: page(() => import('../features/incidents/IncidentReviewPage'), 'IncidentReviewPage'),
  },
  {
    path: 'updates',
    component: page(() => import('../features/updates/UpdatesPage'), 'UpdatesPage'),
    nav: { label: 'nav.updates', section: 'fleet' },
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
    nav: { label: 'nav.discovery', section: 'fleet' },
  },
  {
    path: 'virt',
    component: page(() => import('../features/virt/VirtPage'), 'VirtPage'),
    nav: { label: 'nav.virt', section: 'integrations' },
  },
  {
    path: 'storage',
    component: page(() => import('../features/nas/StoragePage'), 'StoragePage'),
    nav: { label: 'nav.storage', section: 'integrations' },
  },
  {
    path: 'backups',
    component: page(() => import('../features/backup/BackupPage'), 'BackupPage'),
    nav: { label: 'nav.backups', section: 'integrations' },
  },
  {
    path: 'stacks',
    component: page(() => import('../features/stacks/StacksPage'), 'StacksPage'),
    nav: { label: 'nav.stacks', section: 'integrations' },
  },
  {
    path: 'home',
    component: page(() => import('../features/homeauto/HomePage'), 'HomePage'),
    nav: { label: 'nav.home', section: 'integrations' },
  },
  {
    path: 'webhooks',
    component: page(() => import('../features/webhooks/WebhooksPage'), 'WebhooksPage'),
    nav: { label: 'nav.webhooks', section: 'settings' },
  },
  {
    path: 'notifications',
    component: page(() => import('../features/notifications/NotificationsPage'), 'NotificationsPage'),
    nav: { label: 'nav.notifications', section: 'settings', adminOnly: true },
  },
  {
    path: 'dependencies',
    component: page(() => import('../features/dependencies/DependenciesPage'), 'DependenciesPage'),
    nav: { label: 'nav.dependencies', section: 'fleet' },
  },
  {
    path: 'desktop',
    component: page(() => import('../features/sessions/DesktopsPage'), 'DesktopsPage'),
    nav: { label: 'nav.desktops', section: 'fleet' },
  },
  {
    path: 'desktop/recordings/:id',
    component: page(() => import('../features/sessions/DesktopsPage'), 'DesktopRecordingPage'),
  },
  {
    path: 'integrations',
    component: page(() => import('../features/integrations/IntegrationsPage'), 'IntegrationsPage'),
    nav: { label: 'nav.integrations', section: 'settings' },
  },
  {
    path: 'connectors',
    component: page(() => import('../features/connectors/ConnectorsPage'), 'ConnectorsPage'),
    nav: { label: 'nav.connectors', section: 'settings', adminOnly: true },
  },
  {
    path: 'admin',
    component: page(() => import('../features/admin/AdminArea'), 'AdminIndex'),
    nav: { label: 'nav.admin', section: 'settings', adminOnly: true },
  },
  {
    path: 'admin/*',
    component: page(() => import('../features/admin/AdminArea'), 'AdminArea'),
  },
  {
    path: 'sessions',
    component: page(() => import('../features/sessions/SessionsPage'), 'SessionsPage'),
    nav: { label: 'nav.sessions', section: 'fleet' },
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
