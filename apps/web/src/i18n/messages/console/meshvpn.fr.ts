import type { AreaTranslation } from './en.js';
import type { meshvpn as english } from './meshvpn.en.js';

export const meshvpn: AreaTranslation<typeof english> = {
  'meshvpn.checkAgain': 'Vérifier à nouveau',
  'meshvpn.asking': 'Interrogation de Tailscale',
  'meshvpn.reason':
    '{reason, select, not_installed {Tailscale n’est pas installé sur l’hôte du hub} daemon_not_running {tailscaled ne tourne pas} not_logged_in {Tailscale n’est pas connecté} stopped {Tailscale est arrêté} error {Tailscale n’a pas pu être interrogé} other {Tailscale n’est pas disponible}}',
  'meshvpn.checked': 'Vérifié {time}',
  'meshvpn.facts': 'Tailnet',
  'meshvpn.httpsName': 'Nom HTTPS',
  'meshvpn.httpsOff': 'Les certificats HTTPS sont désactivés dans ce tailnet',
  'meshvpn.dnsName': 'Nom MagicDNS',
  'meshvpn.tailnet': 'Tailnet',
  'meshvpn.addresses': 'Adresses',
  'meshvpn.version': 'Version',
  'meshvpn.serve': 'Serve',
  'meshvpn.publishing':
    'publie sur {ports}{funnel, select, yes {, funnel activé (internet public)} other {}}{foreground, select, yes {, dans une session au premier plan} other {}}',
  'meshvpn.nothingServed': 'rien de publié',
  'meshvpn.handlers': 'Handlers de Serve',
  'meshvpn.listener': 'Écoute',
  'meshvpn.path': 'Chemin',
  'meshvpn.kind': 'Type',
  'meshvpn.target': 'Cible',
};
