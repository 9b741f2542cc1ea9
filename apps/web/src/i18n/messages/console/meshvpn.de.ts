import type { AreaTranslation } from './en.js';
import type { meshvpn as english } from './meshvpn.en.js';

export const meshvpn: AreaTranslation<typeof english> = {
  'meshvpn.checkAgain': 'Erneut prüfen',
  'meshvpn.asking': 'Tailscale wird gefragt',
  'meshvpn.reason':
    '{reason, select, not_installed {Tailscale ist auf dem Hub-Host nicht installiert} daemon_not_running {tailscaled läuft nicht} not_logged_in {Tailscale ist nicht angemeldet} stopped {Tailscale ist gestoppt} error {Tailscale konnte nicht gefragt werden} other {Tailscale ist nicht verfügbar}}',
  'meshvpn.checked': 'Geprüft {time}',
  'meshvpn.facts': 'Tailnet',
  'meshvpn.httpsName': 'HTTPS-Name',
  'meshvpn.httpsOff': 'HTTPS-Zertifikate sind in diesem Tailnet ausgeschaltet',
  'meshvpn.dnsName': 'MagicDNS-Name',
  'meshvpn.tailnet': 'Tailnet',
  'meshvpn.addresses': 'Adressen',
  'meshvpn.version': 'Version',
  'meshvpn.serve': 'Serve',
  'meshvpn.publishing':
    'veröffentlicht auf {ports}{funnel, select, yes {, Funnel an (öffentliches Internet)} other {}}{foreground, select, yes {, in einer Vordergrund-Sitzung} other {}}',
  'meshvpn.nothingServed': 'nichts veröffentlicht',
  'meshvpn.handlers': 'Serve-Handler',
  'meshvpn.listener': 'Listener',
  'meshvpn.path': 'Pfad',
  'meshvpn.kind': 'Art',
  'meshvpn.target': 'Ziel',
};
