import type { AreaTranslation } from './en.js';
import type { meshvpn as english } from './meshvpn.en.js';

export const meshvpn: AreaTranslation<typeof english> = {
  'meshvpn.checkAgain': 'Comprobar de nuevo',
  'meshvpn.asking': 'Consultando a Tailscale',
  'meshvpn.reason':
    '{reason, select, not_installed {Tailscale no está instalado en el host del hub} daemon_not_running {tailscaled no se está ejecutando} not_logged_in {Tailscale no ha iniciado sesión} stopped {Tailscale está detenido} error {No se pudo consultar a Tailscale} other {Tailscale no está disponible}}',
  'meshvpn.checked': 'Comprobado {time}',
  'meshvpn.facts': 'Tailnet',
  'meshvpn.httpsName': 'Nombre HTTPS',
  'meshvpn.httpsOff': 'Los certificados HTTPS están desactivados en esta tailnet',
  'meshvpn.dnsName': 'Nombre MagicDNS',
  'meshvpn.tailnet': 'Tailnet',
  'meshvpn.addresses': 'Direcciones',
  'meshvpn.version': 'Versión',
  'meshvpn.serve': 'Serve',
  'meshvpn.publishing':
    'publicando en {ports}{funnel, select, yes {, funnel activado (internet público)} other {}}{foreground, select, yes {, en una sesión en primer plano} other {}}',
  'meshvpn.nothingServed': 'nada publicado',
  'meshvpn.handlers': 'Handlers de Serve',
  'meshvpn.listener': 'Escucha',
  'meshvpn.path': 'Ruta',
  'meshvpn.kind': 'Tipo',
  'meshvpn.target': 'Destino',
};
