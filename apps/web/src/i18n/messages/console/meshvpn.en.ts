/** The Tailscale page (features/meshvpn): the hub host's tailnet name and what `tailscale serve` publishes. */
export const meshvpn = {
  'meshvpn.checkAgain': 'Check again',
  'meshvpn.asking': 'Asking Tailscale',
  'meshvpn.reason':
    '{reason, select, not_installed {Tailscale is not installed on the hub host} daemon_not_running {tailscaled is not running} not_logged_in {Tailscale is not logged in} stopped {Tailscale is stopped} error {Tailscale could not be asked} other {Tailscale is not available}}',
  'meshvpn.checked': 'Checked {time}',
  'meshvpn.facts': 'Tailnet',
  'meshvpn.httpsName': 'HTTPS name',
  'meshvpn.httpsOff': 'HTTPS certificates are off in this tailnet',
  'meshvpn.dnsName': 'MagicDNS name',
  'meshvpn.tailnet': 'Tailnet',
  'meshvpn.addresses': 'Addresses',
  'meshvpn.version': 'Version',
  'meshvpn.serve': 'Serve',
  'meshvpn.publishing':
    'publishing on {ports}{funnel, select, yes {, funnel on (public internet)} other {}}{foreground, select, yes {, in a foreground session} other {}}',
  'meshvpn.nothingServed': 'nothing served',
  'meshvpn.handlers': 'Serve handlers',
  'meshvpn.listener': 'Listener',
  'meshvpn.path': 'Path',
  'meshvpn.kind': 'Kind',
  'meshvpn.target': 'Target',
};
