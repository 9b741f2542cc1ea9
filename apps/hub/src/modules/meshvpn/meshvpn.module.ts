import { createTailscaleCli } from '../../connectors/meshvpn/meshvpn.client.js';
import type { Clock } from '../../platform/clock.js';
import { defineModule } from '../module.js';
import { meshvpnRoutes } from './meshvpn.routes.js';
import { createMeshvpnService } from './meshvpn.service.js';

/** Tailscale on the hub's own host: the tailnet HTTPS name and `tailscale serve`, from the local CLI. */
export function createMeshvpnModule(deps: { clock: Clock; tailscaleBinary: string }) {
  const meshvpn = createMeshvpnService({
    clock: deps.clock,
    cli: createTailscaleCli({ binary: deps.tailscaleBinary }),
  });
  return defineModule({ name: 'meshvpn', services: { meshvpn }, handlers: meshvpnRoutes(meshvpn) });
}
