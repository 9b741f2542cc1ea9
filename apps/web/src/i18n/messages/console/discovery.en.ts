/** The discovery page (features/discovery). */
export const discovery = {
  'discovery.intro':
    'Containers and listening ports the agents report, and hosts on a LAN range when the LAN scan is enabled in the settings. Each finding waits here until someone accepts or dismisses it.',
  'discovery.run': 'Run discovery',
  'discovery.running': 'Discovering…',
  'discovery.cidr': 'LAN CIDR (optional)',
  'discovery.portsOptional': 'Ports (optional)',
  'discovery.done':
    'Discovery done: {answered} of {asked} agents answered, {found, plural, one {# thing found} other {# things found}}, {suggestions, plural, one {# new suggestion} other {# new suggestions}}',
  'discovery.doneEnd': '{done}.',
  'discovery.doneLan':
    '{done}; LAN {cidr}: {hosts, plural, one {# new host} other {# new hosts}} in {probes, plural, one {# probe} other {# probes}}.',
  'discovery.stack': 'stack {name}',
  'discovery.ports': 'ports {ports}',
  'discovery.on': 'on {address}',
  'discovery.tcp': 'TCP {ports}',
  'discovery.decided':
    '{outcome, select, added {{title}: accepted, added as an asset} accepted {{title}: accepted} other {{title}: dismissed}}',
  'discovery.acceptTitle': 'Accept {title}?',
  'discovery.dismissTitle': 'Dismiss {title}?',
  'discovery.addAsAsset': 'Add as asset',
  'discovery.accept': 'Accept',
  'discovery.acceptNamed': 'Accept {title}',
  'discovery.dismiss': 'Dismiss',
  'discovery.dismissNamed': 'Dismiss {title}',
  'discovery.hostText':
    'The host becomes a manual asset with this address; an agent can be enrolled on it later.',
  'discovery.assetName': 'Asset name',
  'discovery.acceptText': 'Marks it as known. It lives on its asset already; nothing else changes.',
  'discovery.dismissText': 'Later runs that find it again leave it dismissed.',
  'discovery.checkMade': '{name}: check made. {link}.',
  'discovery.seeChecks': 'See it on the Checks page',
  'discovery.filters': 'Filter suggestions',
  'discovery.status': 'Status',
  'discovery.anyStatus': 'Any status',
  'discovery.statusValue':
    '{status, select, pending {pending} accepted {accepted} dismissed {dismissed} other {{status}}}',
  'discovery.kind': 'Kind',
  'discovery.anyKind': 'Any kind',
  'discovery.kindValue':
    '{kind, select, container {Container} port {Listening port} host {LAN host} other {{kind}}}',
  'discovery.loading': 'Loading suggestions',
  'discovery.none': 'No suggestions',
  'discovery.noneText': 'Run discovery to ask the agents what runs on their hosts.',
  'discovery.suggestions': 'Suggestions',
  'discovery.found': 'Found',
  'discovery.details': 'Details',
  'discovery.lastSeen': 'Last seen',
  'discovery.asset': 'asset',
  'discovery.watch': 'Watch',
  'discovery.watchNamed': 'Watch {title} with a check',
};
