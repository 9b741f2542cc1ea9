/** The mesh VPN (Tailscale) as the hub's own host sees it: its tailnet HTTPS name and what `serve` publishes. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { Maybe, Timestamp, literals } from './shared.js';

/** Why the hub cannot say: no CLI, no daemon, not signed in to a tailnet, stopped, or the CLI failed. */
export const meshvpnUnavailableReasons = [
  'not_installed',
  'daemon_not_running',
  'not_logged_in',
  'stopped',
  'error',
] as const;
export type MeshvpnUnavailableReason = (typeof meshvpnUnavailableReasons)[number];

export const MeshvpnServeHandler = Type.Object({
  /** `host:port` the tailnet reaches. */
  listener: Type.String(),
  path: Type.String(),
  /** What it forwards to (`http://127.0.0.1:8443`), the text it serves, or the directory it serves. */
  target: Type.String(),
  kind: literals(['proxy', 'text', 'path']),
});
export type MeshvpnServeHandler = Static<typeof MeshvpnServeHandler>;

export const MeshvpnServe = Type.Object({
  available: Type.Boolean(),
  reason: Maybe(literals([...meshvpnUnavailableReasons])),
  /** What went wrong, in words a person can act on; null when available. */
  message: Maybe(Type.String()),
  backend_state: Maybe(Type.String()),
  /** The tailnet HTTPS name (`CertDomains[0]`, no trailing dot); null when HTTPS is off in the tailnet. */
  https_host: Maybe(Type.String()),
  https_enabled: Type.Boolean(),
  /** MagicDNS name of this machine, without its trailing dot. */
  dns_name: Maybe(Type.String()),
  tailnet: Maybe(Type.String()),
  tailscale_ips: Type.Array(Type.String()),
  version: Maybe(Type.String()),
  serve: Type.Object({
    configured: Type.Boolean(),
    /** The config holds only in the foreground process that made it (`tailscale serve` without `--bg`). */
    foreground: Type.Boolean(),
    funnel: Type.Boolean(),
    tcp_ports: Type.Array(Type.Integer()),
    handlers: Type.Array(MeshvpnServeHandler),
  }),
  checked_at: Timestamp,
});
export type MeshvpnServe = Static<typeof MeshvpnServe>;

export const meshvpnContracts = {
  'meshvpn.serve': defineRoute({
    name: 'meshvpn.serve',
    operationId: 'settings.meshvpnServe',
    surface: 'console',
    method: 'GET',
    path: '/settings/meshvpn/serve',
    auth: 'authenticated',
    summary: 'Tailscale HTTPS host detection and serve status',
    description:
      "Runs the hub host's `tailscale` CLI (`status --json`, `serve status --json`) and reports the tailnet HTTPS name and what `tailscale serve` publishes, or `available: false` with the reason.",
    response: MeshvpnServe,
  }),
} satisfies Record<string, RouteContract>;
