/**
 * Default deny (ARCHITECTURE.md 6.1): every route the hub serves is in the one inventory of @svc/protocol,
 * with its guard and scope, and the inventory covers every endpoint of the interface (spec section 4).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import {
  fullPath,
  isGrantableScope,
  routeList,
  routerPath,
  scopes,
  type RouteAuth,
  type RouteContract,
} from '@svc/protocol';
import { startTestHub, type TestHub } from '@svc/testkit';

interface RegisteredRoute {
  method: string;
  path: string;
}

/**
 * Every method + path the Fastify router holds, read from printRoutes (the router's public listing: Fastify
 * has no route enumeration, and buildApp registers its routes before any onRoute hook could be added).
 * Lines the parser does not understand throw, so a format change cannot make routes silently disappear.
 */
function registeredRoutes(app: FastifyInstance): RegisteredRoute[] {
  const out: RegisteredRoute[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    if (line.trim() === '') continue;
    const match = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) throw new Error(`unexpected printRoutes line: ${JSON.stringify(line)}`);
    const depth = (match[1] ?? '').length / 4;
    const path = (depth > 0 ? (prefixes[depth - 1] ?? '') : '') + (match[2] ?? '');
    prefixes.length = depth;
    prefixes[depth] = path;
    for (const method of (match[3] ?? '').split(', ').filter(Boolean)) out.push({ method, path });
  }
  return out;
}

const routeKey = (method: string, path: string) => `${method} ${path}`;

/**
 * Registered routes that are not contracts of the inventory. HEAD is Fastify's automatic twin of a GET (same
 * route options, so the same guard) and counts only when it has no GET beside it.
 */
function routesOutsideInventory(registered: readonly RegisteredRoute[]): RegisteredRoute[] {
  const inventory = new Set(routeList.map((r) => routeKey(r.method, routerPath(r))));
  const getPaths = new Set(registered.filter((r) => r.method === 'GET').map((r) => r.path));
  return registered.filter((r) =>
    r.method === 'HEAD' ? !getPaths.has(r.path) : !inventory.has(routeKey(r.method, r.path)),
  );
}

/**
 * Spec section 4, written out by hand from its tables (not derived from the inventory). `access` is the
 * scope for scoped endpoints; `authenticated` for "none listed", "console" and "authenticated"; `admin` for
 * the API-key table and admin/owner rows; `public` for unauthenticated ones. `bulk:*` is modelled as
 * `bulk:write` (docs/decisions/0001-foundation.md).
 */
const specEndpoints: readonly (readonly [method: string, path: string, access: string])[] = [
  // Discovery
  ['GET', '/api/v2/whoami', 'authenticated'],
  ['GET', '/api/v2/openapi.json', 'public'],
  // API keys (admin only)
  ['POST', '/api/v2/keys', 'admin'],
  ['GET', '/api/v2/keys', 'admin'],
  ['GET', '/api/v2/keys/{id}', 'admin'],
  ['PATCH', '/api/v2/keys/{id}', 'admin'],
  ['DELETE', '/api/v2/keys/{id}', 'admin'],
  // Assets
  ['GET', '/api/v2/assets', 'assets:read'],
  ['GET', '/api/v2/assets/{id}', 'assets:read'],
  ['POST', '/api/v2/assets', 'assets:write'],
  ['PUT', '/api/v2/assets/{id}', 'assets:write'],
  ['DELETE', '/api/v2/assets/{id}', 'assets:write'],
  // Execution
  ['POST', '/api/v2/assets/{id}/exec', 'assets:exec'],
  ['POST', '/api/v2/exec', 'assets:exec'],
  // Files
  ['GET', '/api/v2/assets/{id}/files', 'files:read'],
  ['GET', '/api/v2/assets/{id}/files/read', 'files:read'],
  ['POST', '/api/v2/assets/{id}/files/write', 'files:write'],
  ['POST', '/api/v2/assets/{id}/files/mkdir', 'files:write'],
  ['POST', '/api/v2/assets/{id}/files/rename', 'files:write'],
  ['POST', '/api/v2/assets/{id}/files/copy', 'files:write'],
  ['DELETE', '/api/v2/assets/{id}/files', 'files:write'],
  // System info
  ['GET', '/api/v2/assets/{id}/processes', 'processes:read'],
  ['POST', '/api/v2/assets/{id}/processes/kill', 'processes:kill'],
  ['GET', '/api/v2/assets/{id}/services', 'services:read'],
  ['POST', '/api/v2/assets/{id}/services/{name}/start', 'services:write'],
  ['POST', '/api/v2/assets/{id}/services/{name}/stop', 'services:write'],
  ['POST', '/api/v2/assets/{id}/services/{name}/restart', 'services:write'],
  ['GET', '/api/v2/assets/{id}/network', 'network:read'],
  ['GET', '/api/v2/assets/{id}/disks', 'disks:read'],
  ['GET', '/api/v2/assets/{id}/packages', 'packages:read'],
  ['GET', '/api/v2/assets/{id}/cron', 'cron:read'],
  ['GET', '/api/v2/assets/{id}/users', 'users:read'],
  ['GET', '/api/v2/assets/{id}/logs', 'logs:read'],
  ['GET', '/api/v2/assets/{id}/metrics', 'metrics:read'],
  // Power
  ['POST', '/api/v2/assets/{id}/wake', 'assets:power'],
  ['POST', '/api/v2/assets/{id}/reboot', 'assets:power'],
  ['POST', '/api/v2/assets/{id}/shutdown', 'assets:power'],
  // Containers
  ['GET', '/api/v2/container/hosts', 'container:read'],
  ['GET', '/api/v2/container/hosts/{id}/containers', 'container:read'],
  ['POST', '/api/v2/container/containers/{id}/start', 'container:write'],
  ['POST', '/api/v2/container/containers/{id}/stop', 'container:write'],
  ['POST', '/api/v2/container/containers/{id}/restart', 'container:write'],
  ['GET', '/api/v2/container/containers/{id}/logs', 'container:read'],
  ['GET', '/api/v2/container/stacks/{id}', 'container:read'],
  // Connectors
  ['GET', '/api/v2/connectors', 'connectors:read'],
  ['GET', '/api/v2/connectors/{id}', 'connectors:read'],
  ['GET', '/api/v2/virt/cluster/status', 'connectors:read'],
  ['GET', '/api/v2/virt/cluster/resources', 'connectors:read'],
  ['POST', '/api/v2/virt/assets/{id}/start', 'connectors:write'],
  ['POST', '/api/v2/virt/assets/{id}/stop', 'connectors:write'],
  ['GET', '/api/v2/virt/ceph/status', 'connectors:read'],
  ['GET', '/api/v2/nas/assets/{id}/pools', 'connectors:read'],
  ['GET', '/api/v2/nas/assets/{id}/datasets', 'connectors:read'],
  ['GET', '/api/v2/backup/assets/{id}/datastores', 'connectors:read'],
  ['GET', '/api/v2/stacks/assets/{id}/stacks', 'connectors:read'],
  // Groups, alerts, incidents
  ['GET', '/api/v2/groups', 'groups:read'],
  ['POST', '/api/v2/groups', 'groups:write'],
  ['GET', '/api/v2/alerts', 'alerts:read'],
  ['POST', '/api/v2/alerts/{id}/acknowledge', 'alerts:write'],
  ['POST', '/api/v2/alerts/{id}/silence', 'alerts:write'],
  ['GET', '/api/v2/incidents', 'alerts:read'],
  ['POST', '/api/v2/incidents/{id}/resolve', 'alerts:write'],
  // Metrics, webhooks, schedules, actions, search
  ['GET', '/api/v2/metrics/overview', 'metrics:read'],
  ['POST', '/api/v2/webhooks', 'webhooks:write'],
  ['GET', '/api/v2/webhooks', 'webhooks:read'],
  ['GET', '/api/v2/webhooks/{id}', 'webhooks:read'],
  ['PUT', '/api/v2/webhooks/{id}', 'webhooks:write'],
  ['PATCH', '/api/v2/webhooks/{id}', 'webhooks:write'],
  ['DELETE', '/api/v2/webhooks/{id}', 'webhooks:write'],
  ['POST', '/api/v2/schedules', 'schedules:write'],
  ['GET', '/api/v2/schedules', 'schedules:read'],
  ['DELETE', '/api/v2/schedules/{id}', 'schedules:write'],
  ['POST', '/api/v2/actions', 'actions:write'],
  ['GET', '/api/v2/actions', 'actions:read'],
  ['POST', '/api/v2/actions/{id}/run', 'actions:exec'],
  ['GET', '/api/v2/search', 'search:read'],
  // Other
  ['GET', '/api/v2/hub/status', 'hub:read'],
  ['GET', '/api/v2/hub/agents', 'hub:read'],
  ['GET', '/api/v2/hub/tls', 'hub:read'],
  ['GET', '/api/v2/audit/events', 'audit:read'],
  ['GET', '/api/v2/events/stream', 'events:subscribe'],
  ['POST', '/api/v2/discovery/run', 'discovery:write'],
  ['GET', '/api/v2/dependencies', 'topology:read'],
  ['POST', '/api/v2/bulk/service-action', 'bulk:write'],
  // Console and transport endpoints (outside /api/v2)
  ['GET', '/api/auth/users', 'admin'],
  ['POST', '/api/auth/users', 'admin'],
  ['PATCH', '/api/auth/users/{id}', 'admin'],
  ['GET', '/api/settings/meshvpn/serve', 'authenticated'],
  ['GET', '/api/settings/tls', 'authenticated'],
  ['POST', '/api/settings/tls', 'admin'],
  ['DELETE', '/api/settings/tls', 'admin'],
  ['POST', '/api/settings/restart', 'admin'],
  ['GET', '/api/v1/tls/ca.crt', 'public'],
  ['GET', '/api/v1/tls/info', 'public'],
  ['POST', '/api/v1/enroll', 'public'],
  ['GET', '/status/aggregate', 'authenticated'],
];

/**
 * Routes the hub adds beyond the spec tables, each backed by a decision: group get/update/delete (0001), and
 * the console sign-in of ARCHITECTURE.md section 3 (spec 5.1 methods 2-4: session cookie, OIDC, local auth
 * with 2FA; "login endpoint and session cookie shapes: not shown").
 */
const documentedExtras: readonly (readonly [method: string, path: string, access: string])[] = [
  // Prometheus: service discovery for a scoped key, remote write for admins (decisions 0074, 0075).
  ['GET', '/api/v2/integrations/prometheus/targets', 'prometheus:sd'],
  ['GET', '/api/v2/integrations/prometheus', 'admin'],
  ['PUT', '/api/v2/integrations/prometheus/exporter', 'admin'],
  ['PUT', '/api/v2/integrations/prometheus/remote-write', 'admin'],
  ['DELETE', '/api/v2/integrations/prometheus/remote-write', 'admin'],
  // The container:read scope covers images and volumes; stacks of a host (docs/decisions/0020-containers.md).
  ['GET', '/api/v2/container/hosts/{id}/images', 'container:read'],
  ['GET', '/api/v2/container/hosts/{id}/volumes', 'container:read'],
  ['GET', '/api/v2/container/hosts/{id}/stacks', 'container:read'],
  // Discovery's suggestions, to accept or dismiss (docs/decisions/0021-discovery.md).
  ['GET', '/api/v2/discovery/suggestions', 'discovery:write'],
  ['POST', '/api/v2/discovery/suggestions/{id}/accept', 'discovery:write'],
  ['POST', '/api/v2/discovery/suggestions/{id}/dismiss', 'discovery:write'],
  // Maintenance windows (issue 33, docs/decisions/0078-maintenance-windows.md).
  ['GET', '/api/v2/maintenance/windows', 'maintenance:read'],
  ['GET', '/api/v2/maintenance/active', 'maintenance:read'],
  ['GET', '/api/v2/maintenance/windows/{id}', 'maintenance:read'],
  ['POST', '/api/v2/maintenance/windows', 'maintenance:write'],
  ['PATCH', '/api/v2/maintenance/windows/{id}', 'maintenance:write'],
  ['DELETE', '/api/v2/maintenance/windows/{id}', 'maintenance:write'],
  // Package updates, issue 33 (docs/decisions/0081-update-runs.md).
  ['GET', '/api/v2/updates', 'updates:read'],
  ['GET', '/api/v2/assets/{id}/updates', 'updates:read'],
  ['POST', '/api/v2/assets/{id}/updates/refresh', 'updates:run'],
  ['POST', '/api/v2/update-runs', 'updates:run'],
  ['GET', '/api/v2/update-runs', 'updates:read'],
  ['GET', '/api/v2/update-runs/{id}', 'updates:read'],
  ['GET', '/api/v2/update-runs/{id}/results/{asset_id}', 'updates:read'],
  ['POST', '/api/v2/update-runs/{id}/cancel', 'updates:run'],
  // Service checks, issue 33 (docs/decisions/0079-service-checks.md).
  ['POST', '/api/v2/checks', 'checks:write'],
  ['GET', '/api/v2/checks', 'checks:read'],
  ['GET', '/api/v2/checks/{id}', 'checks:read'],
  ['PATCH', '/api/v2/checks/{id}', 'checks:write'],
  ['DELETE', '/api/v2/checks/{id}', 'checks:write'],
  ['POST', '/api/v2/checks/{id}/run', 'checks:write'],
  ['GET', '/api/v2/checks/{id}/results', 'checks:read'],
  ['POST', '/api/v2/check-suggestions', 'checks:write'],
  ['GET', '/api/v2/groups/{id}', 'groups:read'],
  ['PATCH', '/api/v2/groups/{id}', 'groups:write'],
  ['DELETE', '/api/v2/groups/{id}', 'groups:write'],
  // The fleet's busiest assets in one call (docs/metrics.md).
  ['GET', '/api/v2/metrics/top', 'metrics:read'],
  // Admins disable, enable and delete users (decision 0087), beside the spec's PATCH of a user.
  ['POST', '/api/auth/users/{id}/disable', 'admin'],
  ['POST', '/api/auth/users/{id}/enable', 'admin'],
  ['DELETE', '/api/auth/users/{id}', 'admin'],
  ['POST', '/api/auth/login', 'public'],
  ['POST', '/api/auth/login/2fa', 'public'],
  ['POST', '/api/auth/logout', 'authenticated'],
  ['GET', '/api/auth/me', 'authenticated'],
  // The owner's first sign-in sets a new password; the owner token is made, shown once, by the owner (0005).
  ['POST', '/api/auth/password', 'authenticated'],
  ['POST', '/api/auth/owner-token', 'authenticated'],
  ['GET', '/api/auth/2fa', 'authenticated'],
  ['POST', '/api/auth/2fa/setup', 'authenticated'],
  ['POST', '/api/auth/2fa/verify', 'authenticated'],
  ['POST', '/api/auth/2fa/disable', 'authenticated'],
  ['POST', '/api/auth/2fa/recovery-codes', 'authenticated'],
  ['GET', '/api/auth/oidc/start', 'public'],
  ['GET', '/api/auth/oidc/callback', 'public'],
  // Enrollment and agent-token management (spec 2.4 admin area; decision 0003) and the agent channel.
  ['POST', '/api/v2/enrollment-tokens', 'admin'],
  ['GET', '/api/v2/enrollment-tokens', 'admin'],
  ['DELETE', '/api/v2/enrollment-tokens/{id}', 'admin'],
  ['POST', '/api/v2/agents/{id}/credential/rotate', 'admin'],
  ['DELETE', '/api/v2/agents/{id}/credential', 'admin'],
  ['GET', '/api/v1/agent/channel', 'public'],
  // Runtime settings read and changed one domain at a time (spec 2.7; the spec lists only their restart).
  ['GET', '/api/settings', 'admin'],
  ['GET', '/api/settings/{domain}', 'admin'],
  ['PATCH', '/api/settings/{domain}', 'admin'],
  // Saved actions are deleted, and a schedule's run history read (decision 0018).
  ['DELETE', '/api/v2/actions/{id}', 'actions:write'],
  ['GET', '/api/v2/schedules/{id}/runs', 'schedules:read'],
  // Saved actions and schedules are edited, schedules paused and resumed (decision 0019).
  ['PATCH', '/api/v2/actions/{id}', 'actions:write'],
  ['PATCH', '/api/v2/schedules/{id}', 'schedules:write'],
  // Alert rules, managed through the API as well as the console (decision 0017).
  ['GET', '/api/v2/alerts/rules', 'alerts:read'],
  ['POST', '/api/v2/alerts/rules', 'alerts:write'],
  ['PATCH', '/api/v2/alerts/rules/{id}', 'alerts:write'],
  ['DELETE', '/api/v2/alerts/rules/{id}', 'alerts:write'],
  // A webhook's "send test event" and the Notifications domain's channels with their routing (0016).
  ['POST', '/api/v2/webhooks/{id}/test', 'webhooks:write'],
  // The mobile companion (docs/decisions/0032-mobile-offline-queue-and-push.md, 0033-mobile-device-owner-proof.md).
  ['GET', '/api/notifications/push/key', 'authenticated'],
  ['GET', '/api/notifications/push/subscriptions', 'authenticated'],
  ['POST', '/api/notifications/push/subscriptions', 'authenticated'],
  ['DELETE', '/api/notifications/push/subscriptions/{id}', 'authenticated'],
  ['POST', '/api/mobile/webauthn/registration-options', 'authenticated'],
  ['POST', '/api/mobile/webauthn/registrations', 'authenticated'],
  ['POST', '/api/mobile/webauthn/proof-options', 'authenticated'],
  ['POST', '/api/mobile/webauthn/proofs', 'authenticated'],
  ['POST', '/api/mobile/quick-actions', 'authenticated'],
  ['POST', '/api/mobile/telemetry', 'authenticated'],
  ['GET', '/api/settings/notifications/channels', 'admin'],
  ['POST', '/api/settings/notifications/channels', 'admin'],
  ['GET', '/api/settings/notifications/channels/{id}', 'admin'],
  ['PATCH', '/api/settings/notifications/channels/{id}', 'admin'],
  ['DELETE', '/api/settings/notifications/channels/{id}', 'admin'],
  ['POST', '/api/settings/notifications/channels/{id}/test', 'admin'],
  // Connectors are the Connectors settings domain (spec 2.7): admins add, change, remove, test them (0022).
  ['POST', '/api/v2/connectors', 'admin'],
  ['PATCH', '/api/v2/connectors/{id}', 'admin'],
  ['DELETE', '/api/v2/connectors/{id}', 'admin'],
  ['POST', '/api/v2/connectors/{id}/test', 'admin'],
  // Home automation: the routes the homeauto:read|write scopes imply (decision 0024).
  ['GET', '/api/v2/homeauto/assets/{id}/entities', 'homeauto:read'],
  ['GET', '/api/v2/homeauto/assets/{id}/entities/{entity_id}', 'homeauto:read'],
  ['POST', '/api/v2/homeauto/assets/{id}/services/{domain}/{service}', 'homeauto:write'],
  // Links people declare in the dependency graph: facts about assets, so assets:write (0023).
  ['POST', '/api/v2/dependencies/links', 'assets:write'],
  ['DELETE', '/api/v2/dependencies/links/{id}', 'assets:write'],
  // Terminal sessions and their recordings (decision 0029): assets:exec, the owner or an admin.
  ['POST', '/api/v2/assets/{id}/sessions', 'assets:exec'],
  ['GET', '/api/v2/sessions', 'assets:exec'],
  ['GET', '/api/v2/sessions/{id}', 'assets:exec'],
  ['DELETE', '/api/v2/sessions/{id}', 'assets:exec'],
  ['GET', '/api/v2/sessions/{id}/attach', 'assets:exec'],
  ['GET', '/api/v2/recordings', 'assets:exec'],
  ['GET', '/api/v2/recordings/{id}', 'assets:exec'],
  ['GET', '/api/v2/recordings/{id}/cast', 'assets:exec'],
  ['DELETE', '/api/v2/recordings/{id}', 'assets:exec'],
  // Terminal snippets (personal or shared) and bookmarks (decision 0091): terminal rights, assets:exec.
  ['GET', '/api/v2/terminal-snippets', 'assets:exec'],
  ['POST', '/api/v2/terminal-snippets', 'assets:exec'],
  ['PATCH', '/api/v2/terminal-snippets/{id}', 'assets:exec'],
  ['DELETE', '/api/v2/terminal-snippets/{id}', 'assets:exec'],
  ['GET', '/api/v2/terminal-bookmarks', 'assets:exec'],
  ['POST', '/api/v2/terminal-bookmarks', 'assets:exec'],
  ['PATCH', '/api/v2/terminal-bookmarks/{id}', 'assets:exec'],
  ['DELETE', '/api/v2/terminal-bookmarks/{id}', 'assets:exec'],
  // Saved filters of the assets list (decision 0096): the caller's own, viewers included.
  ['GET', '/api/v2/asset-filters', 'assets:read'],
  ['POST', '/api/v2/asset-filters', 'assets:read'],
  ['PATCH', '/api/v2/asset-filters/{id}', 'assets:read'],
  ['DELETE', '/api/v2/asset-filters/{id}', 'assets:read'],
  // Desktops (decision 0030): an asset's VNC password (admin, write-only), sessions, their recordings.
  ['GET', '/api/v2/desktop/credentials/{id}', 'assets:read'],
  ['PUT', '/api/v2/desktop/credentials/{id}', 'admin'],
  ['DELETE', '/api/v2/desktop/credentials/{id}', 'admin'],
  ['POST', '/api/v2/assets/{id}/desktop/sessions', 'assets:exec'],
  ['GET', '/api/v2/desktop/sessions', 'assets:exec'],
  ['GET', '/api/v2/desktop/sessions/{session_id}/stream', 'assets:exec'],
  ['DELETE', '/api/v2/desktop/sessions/{session_id}', 'assets:exec'],
  ['GET', '/api/v2/desktop/recordings', 'assets:exec'],
  ['GET', '/api/v2/desktop/recordings/{recording_id}', 'assets:exec'],
  // Probes for load balancers and service managers: alive, and ready or not in one word (decision 0034).
  ['GET', '/healthz', 'public'],
  ['GET', '/readyz', 'public'],
  // The hub's own Prometheus metrics, for a key holding the hub:metrics scope (decision 0034).
  ['GET', '/metrics', 'hub:metrics'],
  // The MCP server: any credential; each tool it carries is authorized as its own route (decision 0073).
  ['POST', '/mcp', 'authenticated'],
  // Incident reviews and the blast radius of an asset (decision 0080).
  ['GET', '/api/v2/incidents/{id}/review', 'alerts:read'],
  ['PUT', '/api/v2/incidents/{id}/review', 'alerts:write'],
  ['PATCH', '/api/v2/incidents/{id}/review', 'alerts:write'],
  ['GET', '/api/v2/incidents/{id}/review.md', 'alerts:read'],
  ['GET', '/api/v2/assets/{id}/blast-radius', 'topology:read'],
];

/** Spec 2.4: admin-only areas are runtime settings, enrollment/agent tokens, admin reset, users, API keys. */
const adminAreas = [
  /^\/api\/v2\/keys(\/|$)/,
  /^\/api\/auth\/users(\/|$)/,
  /^\/api\/settings(\/|$)/,
  /^\/api\/v2\/enrollment-tokens(\/|$)/,
  /^\/api\/v2\/agents\/\{id\}\/credential(\/|$)/,
  // The Connectors settings domain (integration credentials), managed at /connectors (decision 0022).
  /^\/api\/v2\/connectors(\/|$)/,
  // Desktop passwords, credentials like the connectors' (decision 0030).
  /^\/api\/v2\/desktop\/credentials(\/|$)/,
  // Prometheus remote write: a receiver's URL and credentials, like the connectors' (decision 0075).
  /^\/api\/v2\/integrations\/prometheus(\/|$)/,
];

const accessOf = (route: RouteContract): string =>
  route.auth === 'scope' ? (route.scope ?? '(scope missing)') : route.auth;

let t: TestHub;
let registered: RegisteredRoute[];

beforeAll(async () => {
  t = await startTestHub();
  registered = registeredRoutes(t.hub.app);
});
afterAll(async () => {
  await t.close();
});

describe('route inventory against the routes Fastify registered', () => {
  it('reads a plausible route table from the router', () => {
    // Guards the parser itself: the inventory has ~90 routes, every GET also answers HEAD.
    expect(registered.length).toBeGreaterThan(routeList.length);
    expect(registered).toContainEqual({ method: 'GET', path: '/api/v2/assets/:id' });
    expect(registered).toContainEqual({ method: 'POST', path: '/api/v2/assets/:id/services/:name/restart' });
    expect(registered).toContainEqual({ method: 'GET', path: '/status/aggregate' });
  });

  it('registers no route outside the inventory', () => {
    expect(routesOutsideInventory(registered)).toEqual([]);
  });

  it('notices a route registered outside the inventory (the check above can fail)', async () => {
    const other = await startTestHub();
    try {
      other.hub.app.get('/api/v2/debug/dump', (_request, reply) => reply.send({ ok: true }));
      other.hub.app.post('/internal/reset', (_request, reply) => reply.send({ ok: true }));
      expect(routesOutsideInventory(registeredRoutes(other.hub.app))).toEqual([
        { method: 'GET', path: '/api/v2/debug/dump' },
        { method: 'POST', path: '/internal/reset' },
      ]);
    } finally {
      await other.close();
    }
  });

  it('registers every contract of the inventory, once', () => {
    const missing = routeList.filter((r) => !t.hub.app.hasRoute({ method: r.method, url: routerPath(r) }));
    expect(missing.map((r) => r.name)).toEqual([]);
    const keys = routeList.map((r) => routeKey(r.method, routerPath(r)));
    expect(new Set(keys).size).toBe(keys.length);
    const names = routeList.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    const nonHead = registered.filter((r) => r.method !== 'HEAD');
    expect(nonHead).toHaveLength(routeList.length);
  });
});

describe('route inventory against the interface (spec section 4)', () => {
  const inventory = new Map(routeList.map((r) => [routeKey(r.method, fullPath(r)), r]));

  it('has every endpoint of the spec with the access the spec names', () => {
    const problems: string[] = [];
    for (const [method, path, access] of specEndpoints) {
      const route = inventory.get(routeKey(method, path));
      if (!route) problems.push(`missing: ${method} ${path}`);
      else if (accessOf(route) !== access)
        problems.push(`${method} ${path}: inventory says ${accessOf(route)}, spec says ${access}`);
    }
    expect(problems).toEqual([]);
    // 96 rows once "PUT or PATCH /webhooks/{id}" counts twice; no row written twice.
    expect(new Set(specEndpoints.map(([m, p]) => routeKey(m, p))).size).toBe(96);
  });

  it('marks exactly the reads that may hold secrets, which a viewer never gets (decision 0005)', () => {
    const marked = routeList.filter((r) => r.readsSecrets).map((r) => r.name);
    // A desktop session create releases the VNC password; recordings show what was on screen (0029, 0030).
    // Terminal snippets are command lines people type (0091).
    expect(marked.sort()).toEqual([
      'containers.logs',
      'desktop.createSession',
      'desktop.recording',
      'desktop.recordings',
      'files.read',
      'sessions.recordingCast',
      'snippets.list',
      'system.cron',
      'system.logs',
      'system.processes',
    ]);
  });

  it('has nothing beyond the spec except the documented extras', () => {
    const expected = new Map(
      [...specEndpoints, ...documentedExtras].map(([m, p, access]) => [routeKey(m, p), access]),
    );
    const extra = routeList
      .filter((r) => !expected.has(routeKey(r.method, fullPath(r))))
      .map((r) => `${r.method} ${fullPath(r)}`);
    expect(extra).toEqual([]);
    for (const [method, path, access] of documentedExtras) {
      const route = inventory.get(routeKey(method, path));
      expect(route && accessOf(route), `${method} ${path}`).toBe(access);
    }
  });

  it('leaves only openapi.json, the probes, the transport endpoints and the console sign-in entry points unauthenticated', () => {
    const publicRoutes = routeList
      .filter((r) => r.auth === 'public')
      .map((r) => `${r.method} ${fullPath(r)}`);
    expect(publicRoutes.sort()).toEqual(
      [
        'GET /api/v2/openapi.json',
        'GET /healthz',
        'GET /readyz',
        'GET /api/v1/tls/ca.crt',
        'GET /api/v1/tls/info',
        'POST /api/v1/enroll',
        'POST /api/auth/login',
        'POST /api/auth/login/2fa',
        'GET /api/auth/oidc/start',
        'GET /api/auth/oidc/callback',
        'GET /api/v1/agent/channel',
      ].sort(),
    );
  });

  it('keeps the own-account console routes (session, 2FA) for sessions: an API key has no second factor', () => {
    const ownAccount = routeList.filter((r) => /^\/api\/auth\/(logout|me|2fa)(\/|$)/.test(fullPath(r)));
    expect(ownAccount.length).toBeGreaterThanOrEqual(7);
    expect(ownAccount.filter((r) => r.sessionOnly !== true).map((r) => r.name)).toEqual([]);
  });
});

describe('guards in the inventory', () => {
  it('gives every scope-guarded route a scope from the vocabulary, and no other route a scope', () => {
    const problems: string[] = [];
    for (const route of routeList) {
      const guard: RouteAuth = route.auth;
      if (guard === 'scope') {
        if (!route.scope) problems.push(`${route.name}: scope guard without a scope`);
        else if (!(scopes as readonly string[]).includes(route.scope) || !isGrantableScope(route.scope))
          problems.push(`${route.name}: unknown scope ${route.scope}`);
      } else if (route.scope !== undefined) {
        problems.push(`${route.name}: ${guard} route carries scope ${route.scope}, which nothing checks`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('puts every admin route in an admin area of spec 2.4, and guards the key and user areas as admin', () => {
    const adminOutside = routeList
      .filter((r) => r.auth === 'admin' && !adminAreas.some((area) => area.test(fullPath(r))))
      .map((r) => r.name);
    expect(adminOutside).toEqual([]);
    const keyAndUserRoutes = routeList.filter((r) =>
      /^\/api\/(v2\/keys|auth\/users)(\/|$)/.test(fullPath(r)),
    );
    expect(keyAndUserRoutes.length).toBeGreaterThanOrEqual(8);
    expect(keyAndUserRoutes.filter((r) => r.auth !== 'admin').map((r) => r.name)).toEqual([]);
  });

  it('names the asset parameter of every route that acts on one asset, and only real path parameters', () => {
    const problems: string[] = [];
    for (const route of routeList) {
      const path = fullPath(route);
      if (route.asset && !path.includes(`{${route.asset.param}}`))
        problems.push(`${route.name}: asset param {${route.asset.param}} is not in ${path}`);
      // Every path under /assets/{id} (or <surface>/assets/{id}, /container/hosts/{id}) names an asset.
      const namesAsset = /\/assets\/\{id\}|\/container\/hosts\/\{id\}/.test(path);
      if (namesAsset && route.asset?.form !== 'asset')
        problems.push(`${route.name}: ${path} acts on an asset but is not checked against allowed_assets`);
      if (/\/container\/(containers|stacks)\/\{id\}/.test(path) && route.asset?.form !== 'compound')
        problems.push(`${route.name}: ${path} takes a compound <asset>:<engine> id`);
    }
    expect(problems).toEqual([]);
  });
});
