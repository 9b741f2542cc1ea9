import type { Handlers } from '../../http/register-routes.js';
import type { MeshvpnService } from './meshvpn.service.js';

export function meshvpnRoutes(meshvpn: MeshvpnService) {
  return {
    'meshvpn.serve': () => meshvpn.serve(),
  } satisfies Handlers;
}
