/** From what the CLI printed to what the console shows: pure, so the table tests cover every state. */
import type { MeshvpnServe, MeshvpnServeHandler, MeshvpnUnavailableReason } from '@svc/protocol';
import type { TailscaleServeConfig, TailscaleServeStatus, TailscaleStatus } from './meshvpn.upstream.js';

type Serve = MeshvpnServe['serve'];

const noServe: Serve = { configured: false, foreground: false, funnel: false, tcp_ports: [], handlers: [] };

export function unavailable(
  reason: MeshvpnUnavailableReason,
  message: string,
  checkedAt: Date,
  status?: TailscaleStatus,
): MeshvpnServe {
  return {
    ...describeStatus(status),
    available: false,
    reason,
    message,
    serve: noServe,
    checked_at: checkedAt.toISOString(),
  };
}

function withoutTrailingDot(name: string | null | undefined): string | null {
  if (!name) return null;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

function describeStatus(status: TailscaleStatus | undefined) {
  const httpsHost = withoutTrailingDot(status?.CertDomains?.[0]);
  return {
    backend_state: status?.BackendState ?? null,
    https_host: httpsHost,
    https_enabled: httpsHost !== null,
    dns_name: withoutTrailingDot(status?.Self?.DNSName),
    tailnet: status?.CurrentTailnet?.Name ?? null,
    tailscale_ips: status?.TailscaleIPs ?? [],
    version: status?.Version ?? null,
  };
}

/** `BackendState` other than Running: why the hub is not reachable over the tailnet. */
export function unavailableReasonOf(
  state: string,
): { reason: MeshvpnUnavailableReason; message: string } | null {
  switch (state) {
    case 'Running':
      return null;
    case 'NeedsLogin':
    case 'NeedsMachineAuth':
      return {
        reason: 'not_logged_in',
        message:
          state === 'NeedsLogin'
            ? 'tailscale is not logged in: run `tailscale up` on the hub host'
            : 'this machine waits for approval by a tailnet admin',
      };
    case 'Stopped':
      return { reason: 'stopped', message: 'tailscale is stopped: run `tailscale up` on the hub host' };
    case 'NoState':
      return { reason: 'daemon_not_running', message: 'tailscaled has no state yet (is it starting?)' };
    default:
      return { reason: 'error', message: `tailscale backend state is ${state}` };
  }
}

function handlersOf(config: TailscaleServeConfig): MeshvpnServeHandler[] {
  const handlers: MeshvpnServeHandler[] = [];
  for (const [listener, web] of Object.entries(config.Web ?? {})) {
    for (const [path, handler] of Object.entries(web.Handlers ?? {})) {
      if (handler.Proxy) handlers.push({ listener, path, kind: 'proxy', target: handler.Proxy });
      else if (handler.Path) handlers.push({ listener, path, kind: 'path', target: handler.Path });
      else if (handler.Text !== undefined && handler.Text !== null)
        handlers.push({ listener, path, kind: 'text', target: handler.Text });
    }
  }
  return handlers;
}

/** The background config and every foreground session's, merged: each publishes on the tailnet now. */
export function describeServeConfig(serve: TailscaleServeStatus): Serve {
  if (serve === null) return noServe;
  const foreground = Object.values(serve.Foreground ?? {});
  const configs: TailscaleServeConfig[] = [serve, ...foreground];
  const ports = new Set<number>();
  for (const config of configs) {
    for (const port of Object.keys(config.TCP ?? {})) {
      const n = Number(port);
      if (Number.isInteger(n)) ports.add(n);
    }
  }
  const handlers = configs.flatMap(handlersOf);
  return {
    configured: ports.size > 0 || handlers.length > 0,
    foreground: foreground.length > 0,
    funnel: configs.some((c) => Object.values(c.AllowFunnel ?? {}).some(Boolean)),
    tcp_ports: [...ports].sort((a, b) => a - b),
    handlers: handlers.sort((a, b) => (a.listener + a.path).localeCompare(b.listener + b.path)),
  };
}

export function describeServe(
  status: TailscaleStatus,
  serve: TailscaleServeStatus,
  checkedAt: Date,
): MeshvpnServe {
  return {
    ...describeStatus(status),
    available: true,
    reason: null,
    message: null,
    serve: describeServeConfig(serve),
    checked_at: checkedAt.toISOString(),
  };
}
