/**
 * The hub host's Tailscale state for the console: the CLI asked at most once per `cacheMs` (any signed-in
 * person can open the page; each look must not spawn two processes), concurrent asks sharing one run.
 */
import type { MeshvpnServe } from '@svc/protocol';
import type { TailscaleCli } from '../../connectors/meshvpn/meshvpn.client.js';
import {
  describeServe,
  unavailable,
  unavailableReasonOf,
} from '../../connectors/meshvpn/meshvpn.connector.js';
import {
  parseTailscaleServeStatus,
  parseTailscaleStatus,
} from '../../connectors/meshvpn/meshvpn.upstream.js';
import type { Clock } from '../../platform/clock.js';

export interface MeshvpnServiceDeps {
  cli: TailscaleCli;
  clock: Clock;
  cacheMs?: number;
}

export interface MeshvpnService {
  serve(): Promise<MeshvpnServe>;
}

const daemonDown = /tailscaled|failed to connect|connection refused|no such file or directory.*sock/i;

export function createMeshvpnService(deps: MeshvpnServiceDeps): MeshvpnService {
  const cacheMs = deps.cacheMs ?? 5_000;
  let cached: { at: number; value: Promise<MeshvpnServe> } | null = null;

  async function detect(): Promise<MeshvpnServe> {
    const now = deps.clock.now();
    const status = await deps.cli.status();
    switch (status.kind) {
      case 'not_found':
        return unavailable('not_installed', 'the tailscale CLI is not installed on the hub host', now);
      case 'timeout':
      case 'too_large':
        return unavailable('error', `tailscale status: ${status.detail}`, now);
      case 'failed':
        return daemonDown.test(status.detail)
          ? unavailable('daemon_not_running', `tailscaled is not running: ${status.detail}`, now)
          : unavailable('error', `tailscale status failed: ${status.detail}`, now);
      case 'ok':
        break;
    }
    const parsed = parseTailscaleStatus(status.stdout);
    if (!parsed)
      return unavailable('error', 'tailscale status printed JSON this hub does not understand', now);
    const notRunning = unavailableReasonOf(parsed.BackendState);
    if (notRunning) return unavailable(notRunning.reason, notRunning.message, now, parsed);
    const serve = await deps.cli.serveStatus();
    const serveConfig = serve.kind === 'ok' ? parseTailscaleServeStatus(serve.stdout) : undefined;
    if (serveConfig === undefined) {
      const why = serve.kind === 'ok' ? 'printed JSON this hub does not understand' : serve.detail;
      return { ...describeServe(parsed, null, now), message: `tailscale serve status: ${why}` };
    }
    return describeServe(parsed, serveConfig, now);
  }

  return {
    serve() {
      const at = deps.clock.now().getTime();
      if (!cached || at - cached.at >= cacheMs || at < cached.at) cached = { at, value: detect() };
      return cached.value;
    },
  };
}
