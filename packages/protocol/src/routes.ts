/**
 * The route inventory: every endpoint the hub serves, with its guard and schemas, composed from one file per
 * area (`api/<area>.ts`, contracts beside their schemas). The hub registers routes from it, the authorization
 * test walks it, the OpenAPI document and the SDK are built from it.
 *
 * An area is a hub module: `api/groups.ts` holds the contracts `modules/groups/` answers, each named
 * `groups.<action>` (or just `groups` for an area of one route). `api/planned.ts` holds the contracts of areas
 * not built yet.
 */
import type { RouteContract } from './contract.js';
import { actionsContracts } from './api/actions.js';
import { agentsContracts } from './api/agents.js';
import { alertsContracts } from './api/alerts.js';
import { assetsContracts } from './api/assets.js';
import { auditContracts } from './api/audit.js';
import { bulkContracts } from './api/bulk.js';
import { containersContracts } from './api/containers.js';
import { discoveryContracts } from './api/discovery.js';
import { authContracts } from './api/auth.js';
import { enrollmentContracts } from './api/enrollment.js';
import { eventsContracts } from './api/events.js';
import { execContracts } from './api/exec.js';
import { filesContracts } from './api/files.js';
import { groupsContracts } from './api/groups.js';
import { hubContracts } from './api/hub.js';
import { incidentsContracts } from './api/incidents.js';
import { keysContracts } from './api/keys.js';
import { homeautoContracts } from './api/homeauto.js';
import { meshvpnContracts } from './api/meshvpn.js';
import { nasContracts } from './api/nas.js';
import { stacksContracts } from './api/stacks.js';
import { metricsContracts } from './api/metrics.js';
import { plannedContracts } from './api/planned.js';
import { prometheusContracts } from './api/prometheus.js';
import { powerContracts } from './api/power.js';
import { schedulesContracts } from './api/schedules.js';
import { maintenanceContracts } from './api/maintenance.js';
import { updatesContracts } from './api/updates.js';
import { checksContracts } from './api/checks.js';
import { searchContracts } from './api/search.js';
import { settingsContracts } from './api/settings.js';
import { statusContracts } from './api/status.js';
import { systemContracts } from './api/system.js';
import { tlsContracts } from './api/tls.js';
import { usersContracts } from './api/users.js';
import { webhooksContracts } from './api/webhooks.js';
import { connectorsContracts } from './api/connectors.js';
import { virtContracts } from './api/virt.js';
import { backupContracts } from './api/backup.js';
import { dependenciesContracts } from './api/dependencies.js';
import { desktopContracts } from './api/desktop.js';
import { mobileContracts } from './api/mobile.js';
import { notificationsContracts } from './api/notifications.js';
import { whoamiContracts } from './api/whoami.js';
import { sessionsContracts } from './api/sessions.js';
import { snippetsContracts } from './api/snippets.js';
import { bookmarksContracts } from './api/bookmarks.js';
import { filtersContracts } from './api/filters.js';
import { mcpContracts } from './api/mcp.js';

/** The built areas, each the contracts of one hub module (the key is the module's folder). */
export const contractAreas = {
  whoami: whoamiContracts,
  hub: hubContracts,
  keys: keysContracts,
  assets: assetsContracts,
  exec: execContracts,
  files: filesContracts,
  system: systemContracts,
  metrics: metricsContracts,
  power: powerContracts,
  groups: groupsContracts,
  search: searchContracts,
  agents: agentsContracts,
  enrollment: enrollmentContracts,
  audit: auditContracts,
  users: usersContracts,
  settings: settingsContracts,
  auth: authContracts,
  tls: tlsContracts,
  status: statusContracts,
  actions: actionsContracts,
  schedules: schedulesContracts,
  maintenance: maintenanceContracts,
  updates: updatesContracts,
  bulk: bulkContracts,
  alerts: alertsContracts,
  incidents: incidentsContracts,
  events: eventsContracts,
  webhooks: webhooksContracts,
  notifications: notificationsContracts,
  mobile: mobileContracts,
  containers: containersContracts,
  discovery: discoveryContracts,
  connectors: connectorsContracts,
  meshvpn: meshvpnContracts,
  nas: nasContracts,
  stacks: stacksContracts,
  homeauto: homeautoContracts,
  virt: virtContracts,
  backup: backupContracts,
  dependencies: dependenciesContracts,
  desktop: desktopContracts,
  sessions: sessionsContracts,
  snippets: snippetsContracts,
  bookmarks: bookmarksContracts,
  filters: filtersContracts,
  mcp: mcpContracts,
  prometheus: prometheusContracts,
  checks: checksContracts,
} as const;

export type AreaName = keyof typeof contractAreas;

export const routes = {
  ...whoamiContracts,
  ...hubContracts,
  ...keysContracts,
  ...assetsContracts,
  ...execContracts,
  ...filesContracts,
  ...systemContracts,
  ...metricsContracts,
  ...powerContracts,
  ...groupsContracts,
  ...searchContracts,
  ...agentsContracts,
  ...enrollmentContracts,
  ...auditContracts,
  ...usersContracts,
  ...settingsContracts,
  ...authContracts,
  ...tlsContracts,
  ...statusContracts,
  ...actionsContracts,
  ...schedulesContracts,
  ...maintenanceContracts,
  ...updatesContracts,
  ...bulkContracts,
  ...alertsContracts,
  ...incidentsContracts,
  ...eventsContracts,
  ...webhooksContracts,
  ...notificationsContracts,
  ...mobileContracts,
  ...containersContracts,
  ...discoveryContracts,
  ...connectorsContracts,
  ...meshvpnContracts,
  ...nasContracts,
  ...stacksContracts,
  ...homeautoContracts,
  ...virtContracts,
  ...backupContracts,
  ...dependenciesContracts,
  ...desktopContracts,
  ...sessionsContracts,
  ...snippetsContracts,
  ...bookmarksContracts,
  ...filtersContracts,
  ...mcpContracts,
  ...prometheusContracts,
  ...checksContracts,
  ...plannedContracts,
} satisfies Record<string, RouteContract>;

export type Routes = typeof routes;
export type RouteName = keyof Routes;
/** Contracts a later issue builds: registered and guarded, answering 501 until then. */
export type PlannedRouteName = keyof typeof plannedContracts;
/** Every contract the hub must answer: a module handles each one (checked when the hub is built). */
export type BuiltRouteName = Exclude<RouteName, PlannedRouteName>;
export const routeList: readonly RouteContract[] = Object.values(routes);

/** The area of a contract name: what comes before the first dot, or the whole name. */
export function areaOf(name: string): string {
  const dot = name.indexOf('.');
  return dot === -1 ? name : name.slice(0, dot);
}
